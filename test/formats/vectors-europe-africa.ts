import { type RuleVectors, v, x } from './vectors.js';

/**
 * Vectors of the rules in src/formats/rules/world-europe-africa.ts (see vectors.ts). Valid numbers
 * are python-stdnum's (github.com/arthurdejong/python-stdnum): the module doctests and the
 * numbers its tests/*.doctest files list as found online, written as they were published.
 * Invalid numbers are python-stdnum's invalid examples, or a real number with one named change.
 * Expected normalized forms are python-stdnum's compact forms (older Romanian register numbers:
 * the new form, as its J52/750/2012 = J2012000750528 example).
 */

/** A real number from `doc` with one stated change. */
const from = (real: string, doc: string, change: string) => `${real} (${doc}) with ${change}`;

export const EUROPE_AFRICA_VECTORS: Record<string, RuleVectors> = {
  'AD:vat_number': {
    valid: [
      v('U-132950-X', 'U132950X', 'python-stdnum stdnum/ad/nrt.py doctest'),
      v('A-700555-R', 'A700555R', 'python-stdnum tests/test_ad_nrt.doctest (numbers found online)'),
      v('F-245998-L', 'F245998L', 'python-stdnum tests/test_ad_nrt.doctest (numbers found online)'),
      v('U800301-M', 'U800301M', 'python-stdnum tests/test_ad_nrt.doctest (numbers found online)'),
    ],
    invalid: [
      x('A123B', 'python-stdnum stdnum/ad/nrt.py doctest', 'length'),
      x('I 706193 G', 'python-stdnum stdnum/ad/nrt.py doctest', 'component'),
      x('0123456N', 'python-stdnum tests/test_ad_nrt.doctest', 'characters'),
    ],
  },
  'AL:vat_number': {
    valid: [
      v('AL J 91402501 L', 'J91402501L', 'python-stdnum stdnum/al/nipt.py doctest'),
      v(
        'J 98624806 P',
        'J98624806P',
        'python-stdnum tests/test_al_nipt.doctest (numbers found online)',
      ),
      v(
        'K82418002C',
        'K82418002C',
        'python-stdnum tests/test_al_nipt.doctest (numbers found online)',
      ),
      v(
        'M02129023 S',
        'M02129023S',
        'python-stdnum tests/test_al_nipt.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('(AL) J 91402501', 'python-stdnum stdnum/al/nipt.py doctest', 'length'),
      x('Z 22218003 V', 'python-stdnum stdnum/al/nipt.py doctest', 'characters'),
      x(
        'J914025011',
        from(
          'J91402501L',
          'python-stdnum stdnum/al/nipt.py doctest',
          'a digit for its last letter',
        ),
        'characters',
      ),
    ],
  },
  'AZ:vat_number': {
    valid: [
      v('140 155 5071', '1401555071', 'python-stdnum stdnum/az/voen.py doctest'),
      v(
        '0200432771',
        '0200432771',
        'python-stdnum tests/test_az_voen.doctest (numbers found online)',
      ),
      v(
        '2903227542',
        '2903227542',
        'python-stdnum tests/test_az_voen.doctest (numbers found online)',
      ),
      v(
        '9900051231',
        '9900051231',
        'python-stdnum tests/test_az_voen.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('140 155 5081', 'python-stdnum stdnum/az/voen.py doctest', 'checksum'),
      x('1400057424', 'python-stdnum stdnum/az/voen.py doctest', 'component'),
      x('12345', 'python-stdnum tests/test_az_voen.doctest', 'length'),
      x('ZZ00057421', 'python-stdnum tests/test_az_voen.doctest', 'characters'),
    ],
  },
  'BE:registration_number': {
    valid: [
      v('BE 428759497', '0428759497', 'python-stdnum stdnum/be/vat.py doctest'),
      v(
        'BE (0)468.561.072',
        '0468561072',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
      ),
      v(
        'BE 0462423150',
        '0462423150',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
      ),
      v(
        'BE697449992',
        '0697449992',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
      ),
    ],
    invalid: [
      x('BE431150351', 'python-stdnum stdnum/be/vat.py doctest', 'checksum'),
      x('BE0000000000', 'python-stdnum tests/test_be_vat.doctest'),
      x('000000', 'python-stdnum tests/test_be_vat.doctest'),
      x('BE2000021323', 'python-stdnum tests/test_be_vat.doctest', 'component'),
      x(
        '0468561073',
        from(
          '0468561072',
          'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '0202239952',
        from(
          '0202239951',
          'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'BY:vat_number': {
    valid: [
      v('200988541', '200988541', 'python-stdnum stdnum/by/unp.py doctest'),
      v('УНП MA1953684', 'MA1953684', 'python-stdnum stdnum/by/unp.py doctest'),
      v(
        'МА1953684',
        'MA1953684',
        'python-stdnum tests/test_by_unp.doctest (Cyrillic letters read as Latin)',
      ),
      v('100217336', '100217336', 'python-stdnum tests/test_by_unp.doctest (numbers found online)'),
      v('192035780', '192035780', 'python-stdnum tests/test_by_unp.doctest (numbers found online)'),
      v('791022114', '791022114', 'python-stdnum tests/test_by_unp.doctest (numbers found online)'),
    ],
    invalid: [
      x('200988542', 'python-stdnum stdnum/by/unp.py doctest', 'checksum'),
      x('5917DDD82', 'python-stdnum tests/test_by_unp.doctest', 'characters'),
      x('991705588', 'python-stdnum tests/test_by_unp.doctest', 'component'),
      x(
        'MA1953685',
        from('MA1953684', 'python-stdnum stdnum/by/unp.py doctest', 'its check digit changed'),
        'checksum',
      ),
      x(
        '100217337',
        from(
          '100217336',
          'python-stdnum tests/test_by_unp.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'GH:vat_number': {
    valid: [
      v('C0000803561', 'C0000803561', 'python-stdnum stdnum/gh/tin.py doctest'),
      v(
        'C0004656830',
        'C0004656830',
        'python-stdnum tests/test_gh_tin.doctest (numbers found online)',
      ),
      v(
        'V0022862404',
        'V0022862404',
        'python-stdnum tests/test_gh_tin.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('C0000803562', 'python-stdnum stdnum/gh/tin.py doctest', 'checksum'),
      x('12345', 'python-stdnum tests/test_gh_tin.doctest', 'length'),
      x('X0000803561', 'python-stdnum tests/test_gh_tin.doctest', 'characters'),
      x(
        'C0002147867',
        from(
          'C0002147866',
          'python-stdnum tests/test_gh_tin.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'GN:vat_number': {
    valid: [
      v('693770885', '693770885', 'python-stdnum stdnum/gn/nifp.py doctest'),
      v(
        '102193364',
        '102193364',
        'python-stdnum tests/test_gn_nifp.doctest (numbers found online)',
      ),
      v(
        '634628101',
        '634628101',
        'python-stdnum tests/test_gn_nifp.doctest (numbers found online)',
      ),
      v(
        '999707235',
        '999707235',
        'python-stdnum tests/test_gn_nifp.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('12345', 'python-stdnum stdnum/gn/nifp.py doctest', 'length'),
      x('693770880', 'python-stdnum stdnum/gn/nifp.py doctest', 'checksum'),
      x('VV3456789', 'python-stdnum tests/test_gn_nifp.doctest', 'characters'),
      x(
        '693770886',
        from('693770885', 'python-stdnum stdnum/gn/nifp.py doctest', 'its check digit changed'),
        'checksum',
      ),
      x(
        '102193365',
        from(
          '102193364',
          'python-stdnum tests/test_gn_nifp.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'IL:registration_number': {
    valid: [
      v('516179157', '516179157', 'python-stdnum stdnum/il/hp.py doctest'),
      v('500107420', '500107420', 'python-stdnum tests/test_il_hp.doctest (numbers found online)'),
      v('515487668', '515487668', 'python-stdnum tests/test_il_hp.doctest (numbers found online)'),
      v('550265193', '550265193', 'python-stdnum tests/test_il_hp.doctest (numbers found online)'),
    ],
    invalid: [
      x('516179150', 'python-stdnum stdnum/il/hp.py doctest', 'checksum'),
      x('490154203237518', 'python-stdnum stdnum/il/hp.py doctest', 'length'),
      x('416179157', 'python-stdnum stdnum/il/hp.py doctest', 'component'),
      x('516179XXX', 'python-stdnum tests/test_il_hp.doctest', 'characters'),
      x(
        '500107421',
        from(
          '500107420',
          'python-stdnum tests/test_il_hp.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '500261350',
        from(
          '500261359',
          'python-stdnum tests/test_il_hp.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'IS:registration_number': {
    valid: [
      v('450401-3150', '4504013150', 'python-stdnum stdnum/is_/kennitala.py doctest'),
      v(
        '020884-2749',
        '0208842749',
        'python-stdnum tests/test_is_kennitala.doctest (numbers found online)',
      ),
      v(
        '5609091440',
        '5609091440',
        'python-stdnum tests/test_is_kennitala.doctest (numbers found online)',
      ),
      v(
        '7003090610',
        '7003090610',
        'python-stdnum tests/test_is_kennitala.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('530575-0299', 'python-stdnum stdnum/is_/kennitala.py doctest', 'checksum'),
      x('320174-3399', 'python-stdnum stdnum/is_/kennitala.py doctest', 'component'),
      x(
        '4504013160',
        from(
          '4504013150',
          'python-stdnum stdnum/is_/kennitala.py doctest',
          'its check digit (the ninth) changed',
        ),
        'checksum',
      ),
    ],
  },
  'KE:vat_number': {
    valid: [
      v('P051365947M', 'P051365947M', 'python-stdnum stdnum/ke/pin.py doctest'),
      v(
        'A005171423w',
        'A005171423W',
        'python-stdnum tests/test_ke_pin.doctest (numbers found online)',
      ),
      v(
        'A001906275H',
        'A001906275H',
        'python-stdnum tests/test_ke_pin.doctest (numbers found online)',
      ),
      v(
        'P000609671I',
        'P000609671I',
        'python-stdnum tests/test_ke_pin.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('12345', 'python-stdnum stdnum/ke/pin.py doctest', 'length'),
      x('V1234567890', 'python-stdnum stdnum/ke/pin.py doctest', 'characters'),
      x(
        'P051365947',
        from('P051365947M', 'python-stdnum stdnum/ke/pin.py doctest', 'its last letter dropped'),
        'length',
      ),
    ],
  },
  'LV:registration_number': {
    valid: [
      v('LV 4000 3521 600', '40003521600', 'python-stdnum stdnum/lv/pvn.py doctest'),
      v(
        'LV 40103157009',
        '40103157009',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
      ),
      v(
        'LV-42103048183',
        '42103048183',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
      ),
    ],
    invalid: [
      x('40003521601', 'python-stdnum stdnum/lv/pvn.py doctest', 'checksum'),
      x('161375-19997', 'python-stdnum stdnum/lv/pvn.py doctest', 'component'),
      x('328673-00677', 'python-stdnum stdnum/lv/pvn.py doctest'),
      x(
        '40003189719',
        from(
          '40003189718',
          'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'MA:registration_number': {
    valid: [
      v('001561191000066', '001561191000066', 'python-stdnum stdnum/ma/ice.py doctest'),
      v(
        '00 21 36 09 30 00 040',
        '002136093000040',
        'python-stdnum tests/test_ma_ice.doctest (numbers found online)',
      ),
      v(
        '000030205000041',
        '000030205000041',
        'python-stdnum tests/test_ma_ice.doctest (numbers found online)',
      ),
      v(
        '002214705000070',
        '002214705000070',
        'python-stdnum tests/test_ma_ice.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('12345', 'python-stdnum stdnum/ma/ice.py doctest', 'length'),
      x('001561191000065', 'python-stdnum stdnum/ma/ice.py doctest', 'checksum'),
      x('X0156119100006Z', 'python-stdnum tests/test_ma_ice.doctest', 'characters'),
      x(
        '002136093000041',
        from(
          '002136093000040',
          'python-stdnum stdnum/ma/ice.py doctest',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '000030205000042',
        from(
          '000030205000041',
          'python-stdnum tests/test_ma_ice.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'MC:vat_number': {
    valid: [
      v('53 0000 04605', 'FR53000004605', 'python-stdnum stdnum/mc/tva.py doctest'),
      v(
        'FR 23 000 047 372',
        'FR23000047372',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online; a 000 body is a Monaco number, stdnum/mc/tva.py)',
      ),
      v(
        'FR16000063601',
        'FR16000063601',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online; a 000 body is a Monaco number, stdnum/mc/tva.py)',
      ),
      v(
        'FR32000000330',
        'FR32000000330',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online; a 000 body is a Monaco number, stdnum/mc/tva.py)',
      ),
    ],
    invalid: [
      x('FR 61 954 506 077', 'python-stdnum stdnum/mc/tva.py doctest', 'component'),
      x(
        'FR16000063602',
        from(
          'FR16000063601',
          'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online; a 000 body is a Monaco number, stdnum/mc/tva.py)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        'FR23000047373',
        from(
          'FR23000047372',
          'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online; a 000 body is a Monaco number, stdnum/mc/tva.py)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'MD:registration_number': {
    valid: [
      v('1008600038413', '1008600038413', 'python-stdnum stdnum/md/idno.py doctest'),
      v(
        '1002600000283',
        '1002600000283',
        'python-stdnum tests/test_md_idno.doctest (numbers found online)',
      ),
      v(
        '1007601004342',
        '1007601004342',
        'python-stdnum tests/test_md_idno.doctest (numbers found online)',
      ),
      v(
        '1018600006266',
        '1018600006266',
        'python-stdnum tests/test_md_idno.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('1008600038412', 'python-stdnum stdnum/md/idno.py doctest', 'checksum'),
      x(
        '1002600000284',
        from(
          '1002600000283',
          'python-stdnum tests/test_md_idno.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '1002600001029',
        from(
          '1002600001028',
          'python-stdnum tests/test_md_idno.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'ME:vat_number': {
    valid: [
      v('02655284', '02655284', 'python-stdnum stdnum/me/pib.py doctest'),
      v('02000989', '02000989', 'python-stdnum tests/test_me_pib.doctest (numbers found online)'),
      v('02467593', '02467593', 'python-stdnum tests/test_me_pib.doctest (numbers found online)'),
      v('03357481', '03357481', 'python-stdnum tests/test_me_pib.doctest (numbers found online)'),
    ],
    invalid: [
      x('02655283', 'python-stdnum stdnum/me/pib.py doctest', 'checksum'),
      x('12345', 'python-stdnum tests/test_me_pib.doctest', 'length'),
      x('12345XYZ', 'python-stdnum tests/test_me_pib.doctest', 'characters'),
      x(
        '02000980',
        from(
          '02000989',
          'python-stdnum tests/test_me_pib.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '02005116',
        from(
          '02005115',
          'python-stdnum tests/test_me_pib.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'MK:vat_number': {
    valid: [
      v('4030000375897', '4030000375897', 'python-stdnum stdnum/mk/edb.py doctest'),
      v(
        'MK 4030005534810',
        '4030005534810',
        'python-stdnum tests/test_mk_edb.doctest (numbers found online)',
      ),
      v(
        '4001015504286',
        '4001015504286',
        'python-stdnum tests/test_mk_edb.doctest (numbers found online)',
      ),
      v(
        '4030005553815',
        '4030005553815',
        'python-stdnum tests/test_mk_edb.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('4030000375890', 'python-stdnum stdnum/mk/edb.py doctest', 'checksum'),
      x('12345', 'python-stdnum tests/test_mk_edb.doctest', 'length'),
      x('1234567890XYZ', 'python-stdnum tests/test_mk_edb.doctest', 'characters'),
      x(
        '4020990116748',
        from('4020990116747', 'python-stdnum stdnum/mk/edb.py doctest', 'its check digit changed'),
        'checksum',
      ),
      x(
        '4057009501107',
        from('4057009501106', 'python-stdnum stdnum/mk/edb.py doctest', 'its check digit changed'),
        'checksum',
      ),
    ],
  },
  'MZ:vat_number': {
    valid: [
      v('400339910', '400339910', 'python-stdnum stdnum/mz/nuit.py doctest'),
      v(
        '400 005 834',
        '400005834',
        'python-stdnum tests/test_mz_nuit.doctest (numbers found online)',
      ),
      v(
        '400058172',
        '400058172',
        'python-stdnum tests/test_mz_nuit.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('12345', 'python-stdnum stdnum/mz/nuit.py doctest', 'length'),
      x('VV3456789', 'python-stdnum tests/test_mz_nuit.doctest', 'characters'),
      x('101935626', 'python-stdnum tests/test_mz_nuit.doctest', 'checksum'),
      x(
        '400005835',
        from('400005834', 'python-stdnum stdnum/mz/nuit.py doctest', 'its check digit changed'),
        'checksum',
      ),
      x(
        '400339911',
        from(
          '400339910',
          'python-stdnum tests/test_mz_nuit.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'OM:vat_number': {
    valid: [
      v('OM1100006083', 'OM1100006083', 'python-stdnum stdnum/om/vat.py doctest'),
      v(
        'OM1100002920',
        'OM1100002920',
        'python-stdnum tests/test_om_vat.doctest (numbers found online)',
      ),
      v(
        'OM1100255952',
        'OM1100255952',
        'python-stdnum tests/test_om_vat.doctest (numbers found online)',
      ),
      v(
        'OM1200362117',
        'OM1200362117',
        'python-stdnum tests/test_om_vat.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('OM1100006084', 'python-stdnum stdnum/om/vat.py doctest', 'checksum'),
      x('110000608312', 'python-stdnum stdnum/om/vat.py doctest'),
      x('OM110000608', 'python-stdnum stdnum/om/vat.py doctest', 'length'),
      x('OM11000060AB', 'python-stdnum stdnum/om/vat.py doctest', 'characters'),
      x(
        'OM1100002921',
        from(
          'OM1100002920',
          'python-stdnum tests/test_om_vat.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'PT:registration_number': {
    valid: [
      v('PT 501 964 843', '501964843', 'python-stdnum stdnum/pt/nif.py doctest'),
      v(
        'PT 500 019 720',
        '500019720',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
      ),
      v(
        'PT 506835669',
        '506835669',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
      ),
      v(
        'PT503038083',
        '503038083',
        'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
      ),
    ],
    invalid: [
      x('PT 501 964 842', 'python-stdnum stdnum/pt/nif.py doctest', 'checksum'),
      x(
        '500019721',
        from(
          '500019720',
          'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '500135496',
        from(
          '500135495',
          'python-stdnum tests/test_eu_vat.doctest (VAT numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'RO:registration_number': {
    valid: [
      v('J52/750/2012', 'J2012000750528', 'python-stdnum stdnum/ro/onrc.py doctest'),
      v(
        'C2005000007045',
        'C2005000007045',
        'python-stdnum tests/test_ro_onrc.doctest (numbers found online)',
      ),
      v(
        'C2005000011220',
        'C2005000011220',
        'python-stdnum tests/test_ro_onrc.doctest (numbers found online)',
      ),
      v(
        'J05/1729/09.09.1991',
        'J1991001729058',
        'python-stdnum tests/test_ro_onrc.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('X52/750/2012', 'python-stdnum stdnum/ro/onrc.py doctest', 'component'),
      x('J2012000750529', 'python-stdnum stdnum/ro/onrc.py doctest', 'checksum'),
      x('J52/100000/2012', 'python-stdnum tests/test_ro_onrc.doctest', 'length'),
      x('J49/750/2012', 'python-stdnum tests/test_ro_onrc.doctest'),
      x(
        'C2005000032044',
        from(
          'C2005000032043',
          'python-stdnum tests/test_ro_onrc.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'RS:vat_number': {
    valid: [
      v('101134702', '101134702', 'python-stdnum stdnum/rs/pib.py doctest'),
      v('100000303', '100000303', 'python-stdnum tests/test_rs_pib.doctest (numbers found online)'),
      v('100187392', '100187392', 'python-stdnum tests/test_rs_pib.doctest (numbers found online)'),
      v('104111220', '104111220', 'python-stdnum tests/test_rs_pib.doctest (numbers found online)'),
    ],
    invalid: [
      x('101134703', 'python-stdnum stdnum/rs/pib.py doctest', 'checksum'),
      x(
        '100000304',
        from(
          '100000303',
          'python-stdnum tests/test_rs_pib.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '100081001',
        from(
          '100081000',
          'python-stdnum tests/test_rs_pib.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'RU:registration_number': {
    valid: [
      v('1022200525819', '1022200525819', 'python-stdnum stdnum/ru/ogrn.py doctest'),
      v(
        '1022300000502',
        '1022300000502',
        'python-stdnum tests/test_ru_ogrn.doctest (numbers found online)',
      ),
      v(
        '1022500000566',
        '1022500000566',
        'python-stdnum tests/test_ru_ogrn.doctest (numbers found online)',
      ),
      v(
        '1027739552642',
        '1027739552642',
        'python-stdnum tests/test_ru_ogrn.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('1022500001328', 'python-stdnum stdnum/ru/ogrn.py doctest', 'checksum'),
      x('10277395526422', 'python-stdnum tests/test_ru_ogrn.doctest', 'length'),
      x('0022500001325', 'python-stdnum tests/test_ru_ogrn.doctest', 'component'),
      x(
        '385768585948940',
        from(
          '385768585948949',
          'python-stdnum stdnum/ru/ogrn.py doctest',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '1022300000503',
        from(
          '1022300000502',
          'python-stdnum tests/test_ru_ogrn.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'RU:vat_number': {
    valid: [
      v('123456789047', '123456789047', 'python-stdnum stdnum/ru/inn.py doctest'),
      v(
        '005826107187',
        '005826107187',
        'python-stdnum tests/test_ru_inn.doctest (numbers found online)',
      ),
      v(
        '7609000881',
        '7609000881',
        'python-stdnum tests/test_ru_inn.doctest (numbers found online)',
      ),
      v(
        '8906008740',
        '8906008740',
        'python-stdnum tests/test_ru_inn.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('123456789037', 'python-stdnum stdnum/ru/inn.py doctest', 'checksum'),
      x('1234567895', 'python-stdnum stdnum/ru/inn.py doctest', 'checksum'),
      x(
        '005826107188',
        from(
          '005826107187',
          'python-stdnum tests/test_ru_inn.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'SI:registration_number': {
    valid: [
      v('9331310000', '9331310', 'python-stdnum stdnum/si/maticna.py doctest'),
      v(
        '1876031010',
        '1876031010',
        'python-stdnum tests/test_si_maticna.doctest (numbers found online)',
      ),
      v('5491711', '5491711', 'python-stdnum tests/test_si_maticna.doctest (numbers found online)'),
    ],
    invalid: [
      x('9331320000', 'python-stdnum stdnum/si/maticna.py doctest', 'checksum'),
      x('12345', 'python-stdnum tests/test_si_maticna.doctest', 'length'),
      x('933A310100', 'python-stdnum tests/test_si_maticna.doctest', 'characters'),
      x(
        '3490361',
        from(
          '3490360',
          'python-stdnum tests/test_si_maticna.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '3501265',
        from(
          '3501264',
          'python-stdnum tests/test_si_maticna.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'SK:registration_number': {
    valid: [
      v('31322832', '31322832', 'python-stdnum stdnum/sk/ico.py doctest'),
      v('00151653', '00151653', 'python-stdnum tests/test_sk_ico.doctest (numbers found online)'),
      v('35757442', '35757442', 'python-stdnum tests/test_sk_ico.doctest (numbers found online)'),
      v('44483767', '44483767', 'python-stdnum tests/test_sk_ico.doctest (numbers found online)'),
    ],
    invalid: [
      x('31322833', 'python-stdnum stdnum/sk/ico.py doctest', 'checksum'),
      x('313228', 'python-stdnum stdnum/sk/ico.py doctest', 'length'),
      x('3132283A', 'python-stdnum tests/test_sk_ico.doctest', 'characters'),
      x(
        '00151654',
        from(
          '00151653',
          'python-stdnum tests/test_sk_ico.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'SN:vat_number': {
    valid: [
      v('306 7221', '3067221', 'python-stdnum stdnum/sn/ninea.py doctest'),
      v(
        '0,017,766 2G3',
        '00177662G3',
        'python-stdnum tests/test_sn_ninea.doctest (numbers found online)',
      ),
      v(
        '007307748 1V1',
        '0073077481V1',
        'python-stdnum tests/test_sn_ninea.doctest (numbers found online)',
      ),
      v(
        '81329702S1',
        '81329702S1',
        'python-stdnum tests/test_sn_ninea.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('3067222', 'python-stdnum stdnum/sn/ninea.py doctest', 'checksum'),
      x('1234567 0AZ', 'python-stdnum stdnum/sn/ninea.py doctest', 'component'),
      x('12345', 'python-stdnum tests/test_sn_ninea.doctest', 'length'),
      x('VV34567', 'python-stdnum tests/test_sn_ninea.doctest', 'characters'),
      x(
        '0015042',
        from(
          '0015041',
          'python-stdnum tests/test_sn_ninea.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '0019367',
        from(
          '0019366',
          'python-stdnum tests/test_sn_ninea.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'TN:vat_number': {
    valid: [
      v('1234567/M/A/E/001', '1234567MAE001', 'python-stdnum stdnum/tn/mf.py doctest'),
      v(
        '1182431M/A/M/000',
        '1182431MAM000',
        'python-stdnum tests/test_tn_mf.doctest (numbers found online)',
      ),
      v('510283 Q', '0510283Q', 'python-stdnum tests/test_tn_mf.doctest (numbers found online)'),
      v(
        '594166X/P/M/000',
        '0594166XPM000',
        'python-stdnum tests/test_tn_mf.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('1219773U', 'python-stdnum stdnum/tn/mf.py doctest'),
      x('1234567/M/A/X/000', 'python-stdnum stdnum/tn/mf.py doctest'),
      x('12345', 'python-stdnum tests/test_tn_mf.doctest', 'length'),
      x('Z1234567', 'python-stdnum tests/test_tn_mf.doctest', 'characters'),
    ],
  },
  'TR:vat_number': {
    valid: [
      v('4540536920', '4540536920', 'python-stdnum stdnum/tr/vkn.py doctest'),
      v(
        '0010213576',
        '0010213576',
        'python-stdnum tests/test_tr_vkn.doctest (numbers found online)',
      ),
      v(
        '3770335008',
        '3770335008',
        'python-stdnum tests/test_tr_vkn.doctest (numbers found online)',
      ),
      v(
        '9990112519',
        '9990112519',
        'python-stdnum tests/test_tr_vkn.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('4540536921', 'python-stdnum stdnum/tr/vkn.py doctest', 'checksum'),
      x('454053692', 'python-stdnum stdnum/tr/vkn.py doctest', 'length'),
      x(
        '0010213577',
        from(
          '0010213576',
          'python-stdnum tests/test_tr_vkn.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '0010441521',
        from(
          '0010441520',
          'python-stdnum tests/test_tr_vkn.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
  'UA:registration_number': {
    valid: [
      v('32855961', '32855961', 'python-stdnum stdnum/ua/edrpou.py doctest'),
      v(
        '00022438',
        '00022438',
        'python-stdnum tests/test_ua_edrpou.doctest (numbers found online)',
      ),
      v(
        '20022334',
        '20022334',
        'python-stdnum tests/test_ua_edrpou.doctest (numbers found online)',
      ),
      v(
        '43808820',
        '43808820',
        'python-stdnum tests/test_ua_edrpou.doctest (numbers found online)',
      ),
    ],
    invalid: [
      x('32855968', 'python-stdnum stdnum/ua/edrpou.py doctest', 'checksum'),
      x('12345', 'python-stdnum stdnum/ua/edrpou.py doctest', 'length'),
      x('VV855961', 'python-stdnum tests/test_ua_edrpou.doctest', 'characters'),
      x(
        '00022439',
        from(
          '00022438',
          'python-stdnum tests/test_ua_edrpou.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
      x(
        '00022497',
        from(
          '00022496',
          'python-stdnum tests/test_ua_edrpou.doctest (numbers found online)',
          'its check digit changed',
        ),
        'checksum',
      ),
    ],
  },
};
