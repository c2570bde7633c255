import { type RuleVectors, v, x } from './vectors.js';

/**
 * Vectors of the rules in src/formats/rules/world-americas-asia-pacific.ts (see vectors.ts).
 * python-stdnum (github.com/arthurdejong/python-stdnum, 2026): tests/test_<cc>_<name>.doctest
 * (numbers found online, and its invalid examples) and the module doctests. An invalid example
 * asserts its reason where python-stdnum names the same one.
 */

/** A real number from `doc` with one stated change. */
const from = (real: string, doc: string, change: string) => `${real} (${doc}) with ${change}`;

const AR_CUIT = 'python-stdnum tests/test_ar_cuit.doctest';
const CL_RUT = 'python-stdnum tests/test_cl_rut.doctest';
const CN_USCC = 'python-stdnum tests/test_cn_uscc.doctest';
const CO_NIT = 'python-stdnum tests/test_co_nit.doctest';
const CR_CPJ = 'python-stdnum tests/test_cr_cpj.doctest';
const DO_RNC = 'python-stdnum tests/test_do_rnc.doctest';
const EC_RUC = 'python-stdnum tests/test_ec_ruc.doctest';
const GT_NIT = 'python-stdnum tests/test_gt_nit.doctest';
const ID_NPWP = 'python-stdnum tests/test_id_npwp.doctest';
const JP_CN = 'python-stdnum tests/test_jp_cn.doctest';
const KR_BRN = 'python-stdnum tests/test_kr_brn.doctest';
const MX_RFC = 'python-stdnum tests/test_mx_rfc.doctest';
const NZ_IRD = 'python-stdnum tests/test_nz_ird.doctest';
const PE_RUC = 'python-stdnum tests/test_pe_ruc.doctest';
const PY_RUC = 'python-stdnum tests/test_py_ruc.doctest';
const SG_UEN = 'python-stdnum tests/test_sg_uen.doctest';
const SV_NIT = 'python-stdnum tests/test_sv_nit.doctest';
const TH_MOA = 'python-stdnum tests/test_th_moa.doctest';
const TH_TIN = 'python-stdnum tests/test_th_tin.doctest';
const TW_UBN = 'python-stdnum tests/test_tw_ubn.doctest';
const UY_RUT = 'python-stdnum tests/test_uy_rut.doctest';
const VE_RIF = 'python-stdnum tests/test_ve_rif.doctest';
const VN_MST = 'python-stdnum tests/test_vn_mst.doctest';
const JP_CN_MODULE = 'python-stdnum stdnum/jp/cn.py doctest';
const KR_BRN_MODULE = 'python-stdnum stdnum/kr/brn.py doctest';
const MX_RFC_MODULE = 'python-stdnum stdnum/mx/rfc.py doctest';
const AR_CUIT_ONLINE = 'python-stdnum tests/test_ar_cuit.doctest (numbers found online)';
const CL_RUT_ONLINE = 'python-stdnum tests/test_cl_rut.doctest (numbers found online)';
const CN_USCC_ONLINE = 'python-stdnum tests/test_cn_uscc.doctest (numbers found online)';
const CO_NIT_ONLINE = 'python-stdnum tests/test_co_nit.doctest (numbers found online)';
const CR_CPJ_ONLINE = 'python-stdnum tests/test_cr_cpj.doctest (numbers found online)';
const DO_RNC_ONLINE = 'python-stdnum tests/test_do_rnc.doctest (numbers found online)';
const EC_RUC_ONLINE = 'python-stdnum tests/test_ec_ruc.doctest (numbers found online)';
const GT_NIT_ONLINE = 'python-stdnum tests/test_gt_nit.doctest (numbers found online)';
const ID_NPWP_ONLINE = 'python-stdnum tests/test_id_npwp.doctest (numbers found online)';
const JP_CN_ONLINE = 'python-stdnum tests/test_jp_cn.doctest (numbers found online)';
const KR_BRN_ONLINE = 'python-stdnum tests/test_kr_brn.doctest (numbers found online)';
const MX_RFC_ONLINE = 'python-stdnum tests/test_mx_rfc.doctest (numbers found online)';
const NZ_IRD_ONLINE = 'python-stdnum tests/test_nz_ird.doctest (numbers found online)';
const PE_RUC_ONLINE = 'python-stdnum tests/test_pe_ruc.doctest (numbers found online)';
const PY_RUC_ONLINE = 'python-stdnum tests/test_py_ruc.doctest (numbers found online)';
const SG_UEN_ONLINE = 'python-stdnum tests/test_sg_uen.doctest (numbers found online)';
const SV_NIT_ONLINE = 'python-stdnum tests/test_sv_nit.doctest (numbers found online)';
const TH_MOA_ONLINE = 'python-stdnum tests/test_th_moa.doctest (numbers found online)';
const TH_TIN_ONLINE = 'python-stdnum tests/test_th_tin.doctest (numbers found online)';
const TW_UBN_ONLINE = 'python-stdnum tests/test_tw_ubn.doctest (numbers found online)';
const UY_RUT_ONLINE = 'python-stdnum tests/test_uy_rut.doctest (numbers found online)';
const VE_RIF_ONLINE = 'python-stdnum tests/test_ve_rif.doctest (numbers found online)';
const VN_MST_ONLINE = 'python-stdnum tests/test_vn_mst.doctest (numbers found online)';

export const AMERICAS_ASIA_PACIFIC_VECTORS: Record<string, RuleVectors> = {
  'MX:vat_number': {
    valid: [
      v('MAB-930714-8T4', 'MAB9307148T4', MX_RFC_MODULE),
      v('GODE 561231 GR8', 'GODE561231GR8', MX_RFC_MODULE),
      v(
        'ALC920108P18',
        'ALC920108P18',
        `${MX_RFC_ONLINE}, second list: check digit fails, accepted by python-stdnum by default`,
      ),
      v('ZGU920526T43', 'ZGU920526T43', MX_RFC_ONLINE),
      v('&JE040614N51', '&JE040614N51', MX_RFC_ONLINE),
    ],
    invalid: [
      x(
        'COMG-600703',
        `${MX_RFC_MODULE}: valid there without homoclave; refused here, not a complete RFC`,
      ),
      x('CACA 580710 NF7', MX_RFC, 'component'),
      x('AKJ970902', MX_RFC, 'length'),
      x('ABCD 12345678', MX_RFC, 'characters'),
      x(
        'MAB-930732-8T4',
        from('MAB-930714-8T4', MX_RFC, 'day 14 changed to 32 (no such date)'),
        'component',
      ),
      x('M4B9307148T4', from('MAB9307148T4', MX_RFC, 'a digit 4 for the letter A'), 'characters'),
    ],
  },
  'KR:vat_number': {
    valid: [
      v('116-82-00276', '1168200276', KR_BRN_MODULE),
      v('211-86-08983', '2118608983', KR_BRN),
      v('101-82-13065', '1018213065', KR_BRN_ONLINE),
      v('220 88 69974', '2208869974', KR_BRN),
    ],
    invalid: [
      x('80123456785', KR_BRN, 'length'),
      x('FF34567890', KR_BRN, 'characters'),
      x('100-86-08983', KR_BRN, 'component'),
      x('211-00-08983', KR_BRN, 'component'),
      x('116-82-00277', from('116-82-00276', KR_BRN, 'its check digit changed'), 'checksum'),
    ],
  },
  'SG:registration_number': {
    valid: [
      v('00192200M', '00192200M', SG_UEN),
      v('197401143C', '197401143C', SG_UEN),
      v('S16FC0121D', 'S16FC0121D', SG_UEN),
      v('T01FC6132D', 'T01FC6132D', SG_UEN),
      v('T19LL0797J', 'T19LL0797J', SG_UEN_ONLINE),
    ],
    invalid: [
      x('00192200C', SG_UEN, 'checksum'),
      x('123456', SG_UEN, 'length'),
      x('T99LL6789H', SG_UEN, 'component'),
      x('T02LL67890', SG_UEN, 'checksum'),
      x('W23LL6789H', SG_UEN, 'component'),
    ],
  },
  'CN:vat_number': {
    valid: [
      v('91 110000 600037341L', '91110000600037341L', CN_USCC),
      v('91340600MA2PBP2120', '91340600MA2PBP2120', `${CN_USCC_ONLINE}; rejected by stdnum-js`),
      v('911522010783762860', '911522010783762860', `${CN_USCC_ONLINE}; rejected by stdnum-js`),
      v('92340621MA2UK3CE6L', '92340621MA2UK3CE6L', CN_USCC_ONLINE),
    ],
    invalid: [
      x('12345', CN_USCC, 'length'),
      x('A1110000600037341L', CN_USCC, 'characters'),
      x('9111000060003IOZSV', CN_USCC, 'characters'),
      x('91110000600037341N', CN_USCC, 'checksum'),
    ],
  },
  'CN:registration_number': {
    valid: [
      v('91 110000 600037341L', '91110000600037341L', CN_USCC),
      v('91340600MA2PBP2120', '91340600MA2PBP2120', `${CN_USCC_ONLINE}; rejected by stdnum-js`),
      v('911522010783762860', '911522010783762860', `${CN_USCC_ONLINE}; rejected by stdnum-js`),
      v('92340621MA2UK3CE6L', '92340621MA2UK3CE6L', CN_USCC_ONLINE),
    ],
    invalid: [
      x('12345', CN_USCC, 'length'),
      x('A1110000600037341L', CN_USCC, 'characters'),
      x('9111000060003IOZSV', CN_USCC, 'characters'),
      x('91110000600037341N', CN_USCC, 'checksum'),
    ],
  },
  'TW:vat_number': {
    valid: [
      v('00501503', '00501503', TW_UBN_ONLINE),
      v(' 0027710-4 ', '00277104', TW_UBN),
      v('10000004', '10000004', TW_UBN),
      v('10000026', '10000026', TW_UBN),
      v('99963479', '99963479', TW_UBN_ONLINE),
    ],
    invalid: [
      x('12345', TW_UBN, 'length'),
      x('FF277104', TW_UBN, 'characters'),
      x('00277103', TW_UBN, 'checksum'),
      x('00501504', from('00501503', TW_UBN, 'its check digit changed'), 'checksum'),
    ],
  },
  'JP:registration_number': {
    valid: [
      v('5-8356-7825-6246', '5835678256246', JP_CN_MODULE),
      v('1020281079130', '1020281079130', JP_CN_ONLINE),
      v('9863806292730', '9863806292730', JP_CN_ONLINE),
    ],
    invalid: [
      x('2-8356-7825-6246', JP_CN, 'checksum'),
      x('2-aaaa-7825-6246', JP_CN, 'characters'),
      x('583567825624', from('5835678256246', JP_CN, 'last digit dropped'), 'length'),
    ],
  },
  'TH:vat_number': {
    valid: [
      v('0 13 5 559 01262 8', '0135559012628', TH_TIN_ONLINE),
      v('3-1907-00075-74-1', '3190700075741', TH_TIN_ONLINE),
      v('5-49-0-200-01960-8', '5490200019608', TH_TIN_ONLINE),
    ],
    invalid: [
      x('1-2345-45678-78-11', TH_TIN),
      x('1-2345-45678-78-X', TH_TIN, 'characters'),
      x('0-2345-45678-78-1', TH_TIN),
      x('9-2345-45678-78-1', TH_TIN),
    ],
  },
  'TH:registration_number': {
    valid: [
      v('0 10 5 544 04660 2', '0105544046602', TH_MOA_ONLINE),
      v('0 10 5 559 13643 2', '0105559136432', TH_MOA_ONLINE),
      v('0992001526719', '0992001526719', TH_MOA_ONLINE),
    ],
    invalid: [
      x('0-99-4-000', TH_MOA, 'length'),
      x('0-99-4-00A-61772-X', TH_MOA, 'characters'),
      x('3-99-4-000-61772-1', TH_MOA, 'component'),
      x('0-99-4-000-61772-8', TH_MOA, 'checksum'),
    ],
  },
  'ID:vat_number': {
    valid: [
      v('01.451.869.0-054.000', '014518690054000', ID_NPWP),
      v('023869720091000', '023869720091000', ID_NPWP),
      v('03.026.787.6-805.000', '030267876805000', `${ID_NPWP_ONLINE}; rejected by stdnum-js`),
      v('3171011708450001', '3171011708450001', ID_NPWP),
      v(
        '0014518690054000',
        '0014518690054000',
        `01.451.869.0-054.000 (${ID_NPWP}) in the 16-digit form of 2024 (a leading 0)`,
      ),
    ],
    invalid: [
      x('12345678901234', ID_NPWP, 'length'),
      x('FF3456789012345', ID_NPWP, 'characters'),
      x('01.451.869.7-054.000', ID_NPWP, 'checksum'),
      x('3171013208450001', from('3171011708450001', ID_NPWP, 'day 17 changed to 32'), 'component'),
      x(
        '0014518697054000',
        from(
          '0014518690054000 (01.451.869.0-054.000 with a leading 0)',
          ID_NPWP,
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'VN:vat_number': {
    valid: [
      v('0100233488', '0100233488', VN_MST),
      v('0314409058-002', '0314409058002', VN_MST),
      v('0312 68 78 78 - 001', '0312687878001', VN_MST),
      v('8463763902', '8463763902', VN_MST_ONLINE),
    ],
    invalid: [
      x('12345', VN_MST, 'length'),
      x('VV34567890', VN_MST, 'characters'),
      x('0100000008', VN_MST, 'component'),
      x('0314409058-000', VN_MST, 'component'),
      x('0100233480', VN_MST, 'checksum'),
    ],
  },
  'AR:vat_number': {
    valid: [
      v('20-05536168-2', '20055361682', AR_CUIT),
      v('20040356437', '20040356437', AR_CUIT_ONLINE),
      v('33712308589', '33712308589', AR_CUIT_ONLINE),
      v('34546198105', '34546198105', AR_CUIT_ONLINE),
    ],
    invalid: [
      x('2026756539', AR_CUIT, 'length'),
      x('2026756A393', AR_CUIT, 'characters'),
      x('99-05536168-8', AR_CUIT, 'component'),
      x('20-05536168-3', from('20-05536168-2', AR_CUIT, 'its check digit changed'), 'checksum'),
    ],
  },
  'CL:vat_number': {
    valid: [
      v('10075381-2', '100753812', CL_RUT_ONLINE),
      v('99.561.530-4', '995615304', CL_RUT_ONLINE),
      v('10219183-8', '102191838', CL_RUT_ONLINE),
    ],
    invalid: [
      x('10075381-3', from('10075381-2', CL_RUT, 'its check digit changed'), 'checksum'),
      x('1007538-2', from('10075381-2', CL_RUT, 'one digit dropped'), 'checksum'),
      x('10075381-X', from('10075381-2', CL_RUT, 'X for the check digit'), 'checksum'),
    ],
  },
  'CO:vat_number': {
    valid: [
      v('213.123.432-1', '2131234321', CO_NIT),
      v('900356846-7', '9003568467', CO_NIT_ONLINE),
      v('15.252.525-0', '152525250', CO_NIT_ONLINE),
    ],
    invalid: [
      x('2131234', CO_NIT, 'length'),
      x('213123435A', CO_NIT),
      x('2131234350', CO_NIT, 'checksum'),
    ],
  },
  'EC:vat_number': {
    valid: [
      v('0101016905001', '0101016905001', EC_RUC_ONLINE),
      v('0160000510001', '0160000510001', EC_RUC_ONLINE),
      v('1890001323001', '1890001323001', EC_RUC_ONLINE),
      v('1793221293001', '1793221293001', `${EC_RUC_ONLINE}; rejected by stdnum-js`),
    ],
    invalid: [
      x('179206034601', EC_RUC, 'length'),
      x('17920603A6001', EC_RUC, 'characters'),
      x('0170000610001', EC_RUC, 'component'),
      x('1763154690001', EC_RUC, 'checksum'),
      x('1760001550000', EC_RUC, 'component'),
    ],
  },
  'PE:vat_number': {
    valid: [
      v('20512333797', '20512333797', PE_RUC),
      v('10000655959', '10000655959', PE_RUC_ONLINE),
      v('20552756453', '20552756453', PE_RUC_ONLINE),
    ],
    invalid: [
      x('2051233379', PE_RUC, 'length'),
      x('99512333792', PE_RUC, 'component'),
      x('20A12333797', PE_RUC, 'characters'),
      x('20512333798', from('20512333797', PE_RUC, 'its check digit changed'), 'checksum'),
    ],
  },
  'UY:vat_number': {
    valid: [
      v('21-100342-001-7', '211003420017', UY_RUT),
      v('UY 21 140634 001 1', '211406340011', UY_RUT),
      v('220018800014', '220018800014', `${UY_RUT_ONLINE}; rejected by stdnum-js`),
      v('020164180014', '020164180014', UY_RUT_ONLINE),
    ],
    invalid: [
      x('2142184200106', UY_RUT, 'length'),
      x('FF1599340019', UY_RUT, 'characters'),
      x('001599340019', UY_RUT, 'component'),
      x('991599340011', UY_RUT, 'component'),
      x('211599340010', UY_RUT, 'checksum'),
    ],
  },
  'PY:vat_number': {
    valid: [
      v('80000020-0', '800000200', PY_RUC),
      v('9991603', '9991603', PY_RUC),
      v('1280950-0', '12809500', `${PY_RUC_ONLINE}; rejected by stdnum-js`),
      v('1068460-3', '10684603', PY_RUC_ONLINE),
    ],
    invalid: [
      x('80123456785', PY_RUC, 'length'),
      x('FF8002121', PY_RUC, 'characters'),
      x('80021744-8', PY_RUC, 'checksum'),
      x('1280950-1', from('1280950-0', PY_RUC, 'its check digit changed'), 'checksum'),
    ],
  },
  'VE:vat_number': {
    valid: [
      v('V-11470283-4', 'V114702834', VE_RIF),
      v('E810812535', 'E810812535', VE_RIF_ONLINE),
      v('V258279570', 'V258279570', VE_RIF_ONLINE),
    ],
    invalid: [
      x('V-11470283-3', VE_RIF, 'checksum'),
      x('V-114702839-4', VE_RIF, 'length'),
      x('Z-11470283-4', VE_RIF, 'component'),
      x('V-11A70283-4', VE_RIF, 'characters'),
    ],
  },
  'CR:vat_number': {
    valid: [
      v('3-101-999999', '3101999999', CR_CPJ),
      v('3 010 179406', '3010179406', CR_CPJ),
      v('2-100-042002', '2100042002', CR_CPJ_ONLINE),
      v('4-000-042152', '4000042152', CR_CPJ_ONLINE),
    ],
    invalid: [
      x('3-102-10536', CR_CPJ, 'length'),
      x('3-102-ABCDEF', CR_CPJ, 'characters'),
      x('1-101-079297', CR_CPJ, 'component'),
      x('3-121-176017', CR_CPJ, 'component'),
      x('5-000-123456', CR_CPJ, 'component'),
    ],
  },
  'CR:registration_number': {
    valid: [
      v('3-101-999999', '3101999999', CR_CPJ),
      v('3 010 179406', '3010179406', CR_CPJ),
      v('2-100-042002', '2100042002', CR_CPJ_ONLINE),
      v('4-000-042152', '4000042152', CR_CPJ_ONLINE),
    ],
    invalid: [
      x('3-102-10536', CR_CPJ, 'length'),
      x('3-102-ABCDEF', CR_CPJ, 'characters'),
      x('1-101-079297', CR_CPJ, 'component'),
      x('3-121-176017', CR_CPJ, 'component'),
      x('5-000-123456', CR_CPJ, 'component'),
    ],
  },
  'SV:tax_identifier': {
    valid: [
      v('0614-050707-104-8', '06140507071048', SV_NIT),
      v('SV 0614-050707-104-8', '06140507071048', SV_NIT),
      v('0210-191171-001-6', '02101911710016', `${SV_NIT_ONLINE}; rejected by stdnum-js`),
      v('9483-260110-101-0', '94832601101010', SV_NIT_ONLINE),
    ],
    invalid: [
      x('12345', SV_NIT, 'length'),
      x('VV345678901234', SV_NIT, 'characters'),
      x('52345678901234', SV_NIT, 'component'),
      x('0614-050707-104-0', SV_NIT, 'checksum'),
      x(
        '0210-191171-001-7',
        from('0210-191171-001-6', SV_NIT, 'its check digit changed'),
        'checksum',
      ),
    ],
  },
  'GT:vat_number': {
    valid: [
      v('576937-K', '576937K', GT_NIT),
      v('6946874-5', '69468745', GT_NIT),
      v('1245535-0', '12455350', GT_NIT_ONLINE),
    ],
    invalid: [
      x('1234567890123', GT_NIT, 'length'),
      x('FF12', GT_NIT, 'characters'),
      x('12D', GT_NIT),
      x('8170266-0', GT_NIT, 'checksum'),
    ],
  },
  'DO:vat_number': {
    valid: [
      v('122011226', '122011226', DO_RNC),
      v('1-01-63758-7', '101637587', DO_RNC),
      v('501676936', '501676936', `${DO_RNC_ONLINE}; rejected by stdnum-js`),
      v('531137152', '531137152', DO_RNC_ONLINE),
    ],
    invalid: [
      x('1234567890', DO_RNC, 'length'),
      x('acvbnmkjh', DO_RNC, 'characters'),
      x('112031226', DO_RNC, 'checksum'),
      x('12345678', DO_RNC, 'length'),
    ],
  },
  'NZ:vat_number': {
    valid: [
      v('49091850', '49091850', NZ_IRD),
      v('136410132', '136410132', NZ_IRD_ONLINE),
      v('047-179-025', '047179025', NZ_IRD_ONLINE),
      v('NZ 53-710-220', '53710220', `${NZ_IRD_ONLINE}, written with the NZ prefix`),
    ],
    invalid: [
      x('136410133', NZ_IRD, 'checksum'),
      x('9125568', NZ_IRD, 'length'),
      x('1234567A', NZ_IRD, 'characters'),
      x('150000001', NZ_IRD),
    ],
  },
};
