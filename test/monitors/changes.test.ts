import { describe, expect, it } from 'vitest';
import {
  detectChanges,
  severityOfChange,
  severityOfChanges,
} from '../../src/modules/monitors/changes.js';
import type { MonitorSnapshot, WatchedField } from '../../src/modules/monitors/monitors.schemas.js';

const ALL: WatchedField[] = [
  'registry_match_status',
  'company_legal_status',
  'legal_name',
  'registration_number',
  'vat_numbers',
  'registered_address',
];
const BASE: MonitorSnapshot = {
  check_id: 'chk_00000000000000000000000000',
  observed_at: '2026-11-21T12:00:00.000Z',
  registry_match_status: 'matched',
  company_legal_status: 'active',
  legal_name: 'Acme Trading Ltd',
  registration_number: '01234567',
  vat_numbers: ['GB999000005', 'XI999000005'],
  registered_address: '1 High Street, London, EC1A 1AA',
};
const later = (change: Partial<MonitorSnapshot>): MonitorSnapshot => ({
  ...BASE,
  check_id: 'chk_10000000000000000000000000',
  observed_at: '2026-11-22T12:00:00.000Z',
  ...change,
});

describe('change detection', () => {
  it.each([
    ['the same record', {}],
    ['the name in other case and spacing', { legal_name: 'ACME  trading LTD ' }],
    ['the address re-typed', { registered_address: '1 high street ,london,  EC1A 1AA' }],
    [
      'VAT numbers in another order, repeated, with separators',
      { vat_numbers: ['XI 999 000 005', 'GB999000005', 'gb999000005'] },
    ],
    ['the registration number with separators', { registration_number: '0123 4567' }],
  ])('%s is no change', (_name, change) => {
    expect(detectChanges(BASE, later(change), ALL)).toEqual([]);
  });

  it('an outage on either side is never a change of any field', () => {
    const outage = later({
      registry_match_status: 'unavailable',
      company_legal_status: 'unavailable',
      legal_name: null,
      registration_number: null,
      vat_numbers: [],
      registered_address: null,
    });
    expect(detectChanges(BASE, outage, ALL)).toEqual([]);
    expect(detectChanges(outage, later({ legal_name: 'Other Ltd' }), ALL)).toEqual([]);
  });

  it('reports each changed watched field with its values as written, in field order', () => {
    const current = later({
      company_legal_status: 'liquidation',
      legal_name: 'Acme Holdings Ltd',
      vat_numbers: ['GB999000005', 'XI999000005', 'GB999000047'],
      registered_address: '2 Low Road, Leeds, LS1 1AA',
    });
    expect(detectChanges(BASE, current, ALL)).toEqual([
      { field: 'company_legal_status', previous: 'active', current: 'liquidation' },
      { field: 'legal_name', previous: 'Acme Trading Ltd', current: 'Acme Holdings Ltd' },
      {
        field: 'vat_numbers',
        previous: ['GB999000005', 'XI999000005'],
        current: ['GB999000005', 'XI999000005', 'GB999000047'],
      },
      {
        field: 'registered_address',
        previous: BASE.registered_address,
        current: '2 Low Road, Leeds, LS1 1AA',
      },
    ]);
    // Only the watched fields.
    expect(detectChanges(BASE, current, ['registered_address']).map((c) => c.field)).toEqual([
      'registered_address',
    ]);
    expect(detectChanges(BASE, current, ['registration_number'])).toEqual([]);
  });

  it.each([
    ['company_legal_status', 'active', 'liquidation', 'high'],
    ['company_legal_status', 'active', 'unknown', 'high'],
    ['company_legal_status', 'liquidation', 'dissolved', 'high'],
    ['company_legal_status', 'unknown', 'active', 'warning'],
    ['registry_match_status', 'matched', 'not_matched', 'high'],
    ['registry_match_status', 'not_matched', 'matched', 'warning'],
    ['legal_name', 'A', 'B', 'warning'],
    ['registration_number', '1', '2', 'warning'],
    ['vat_numbers', ['A'], ['A', 'B'], 'warning'],
    ['registered_address', 'a', 'b', 'info'],
  ] as const)('a change of %s from %j to %j is %s', (field, previous, current, severity) => {
    expect(
      severityOfChange({
        field,
        previous: previous as never,
        current: current as never,
      }),
    ).toBe(severity);
  });

  it('an event is as severe as its most severe change', () => {
    expect(
      severityOfChanges([
        { field: 'registered_address', previous: 'a', current: 'b' },
        { field: 'legal_name', previous: 'A', current: 'B' },
      ]),
    ).toBe('warning');
    expect(severityOfChanges([{ field: 'registered_address', previous: 'a', current: 'b' }])).toBe(
      'info',
    );
  });
});
