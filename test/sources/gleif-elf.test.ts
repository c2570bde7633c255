/**
 * The ELF code list copy (src/sources/gleif/elf-legal-forms.ts): GLEIF's ISO 20275 list,
 * version 1.6 of 2026-02-19, for the countries the GLEIF adapter covers. The expected names below
 * are rows of that list.
 */
import { describe, expect, it } from 'vitest';
import {
  ELF_CODES,
  ELF_LIST,
  elfLegalForm,
  elfLegalFormName,
} from '../../src/sources/gleif/elf-legal-forms.js';
import { GLEIF_COUNTRIES } from '../../src/sources/gleif/gleif-registered-as.js';

describe('ELF legal forms: the copy of the list', () => {
  it('names its source and version', () => {
    expect(ELF_LIST).toEqual({
      version: '1.6',
      published: '2026-02-19',
      read: '2026-11-26',
      url: 'https://www.gleif.org/en/about-lei/code-lists/iso-20275-entity-legal-forms-code-list',
    });
  });

  it('holds the rows of every GLEIF country and of no other, active and inactive', () => {
    const forms = ELF_CODES.map((code) => elfLegalForm(code));
    expect(ELF_CODES).toHaveLength(684);
    for (const code of ELF_CODES) expect(code).toMatch(/^[A-Z0-9]{4}$/);
    const countries = new Set(forms.map((f) => f?.country));
    expect([...countries].sort()).toEqual([...GLEIF_COUNTRIES]);
    const rows = forms.flatMap((f) => f?.names.map(() => f.status) ?? []);
    expect(rows).toHaveLength(968);
    expect(rows.filter((s) => s === 'INAC')).toHaveLength(79);
    for (const form of forms) {
      expect(form?.names.length).toBeGreaterThan(0);
      for (const name of form?.names ?? []) {
        expect(name.name).toBe(name.name.trim());
        expect(name.name).not.toMatch(/\s{2}|\u00a0/);
        for (const abbreviation of name.abbreviations) expect(abbreviation).not.toBe('');
      }
    }
  });

  it('does not hold 8888 and 9999, which name no legal form', () => {
    expect(elfLegalForm('8888')).toBeUndefined();
    expect(elfLegalForm('9999')).toBeUndefined();
  });

  it('keeps every language of a multilingual code, in the list order', () => {
    expect(elfLegalForm('R85P')).toEqual({
      code: 'R85P',
      country: 'BE',
      status: 'ACTV',
      names: [
        { language: 'nl', name: 'Naamloze vennootschap', abbreviations: ['NV'] },
        { language: 'fr', name: 'Société anonyme', abbreviations: ['SA'] },
        { language: 'de', name: 'Aktiengesellschaft', abbreviations: ['AG'] },
      ],
    });
  });

  it('keeps inactive codes with their names', () => {
    expect(elfLegalForm('4ZRR')).toEqual({
      code: '4ZRR',
      country: 'NO',
      status: 'INAC',
      names: [
        { language: 'no', name: 'Norskregistrert utenlandsk foretak', abbreviations: ['NUF'] },
      ],
    });
  });
});

describe('ELF legal forms: names as shown', () => {
  it.each([
    ['6QQB', undefined, 'Aktiengesellschaft (AG)'],
    ['2HBR', 'de', 'Gesellschaft mit beschränkter Haftung (GmbH)'],
    // Several abbreviations: the first, the list's usual one.
    ['8Z6G', 'de', 'Kommanditgesellschaft (KG)'],
    ['XJHM', 'sv', 'Aktiebolag (AB)'],
    ['DKUW', 'fi', 'Osakeyhtiö (oy)'],
    ['DKUW', 'sv', 'Aktiebolag (ab)'],
    ['R85P', 'fr', 'Société anonyme (SA)'],
    ['R85P', 'nl-BE', 'Naamloze vennootschap (NV)'],
    // A language the code has no name in: the list's first name.
    ['R85P', 'en', 'Naamloze vennootschap (NV)'],
    ['V2YH', 'de', 'Stiftung des privaten Rechts'],
    // Codes are read whatever their case or surrounding spaces.
    [' 6qqb ', 'de', 'Aktiengesellschaft (AG)'],
  ])('%s in %s reads %s', (code, language, expected) => {
    expect(elfLegalFormName(code, language)).toBe(expected);
  });

  it.each(['XTIQ', 'ZZ9Z', '', '8888'])('has no name for %j', (code) => {
    expect(elfLegalFormName(code, 'en')).toBeUndefined();
  });
});
