import type { CompanyLegalStatus } from '../registry-source.js';

/**
 * An LEI record's entity status (`entity.status`), refined by the expiration reason
 * (`entity.expiration.reason`) when the entity is inactive: the values of the LEI Common Data File
 * format (EntityStatusEnum and ExpirationReasonEnum) as the GLEIF API returns them. The key is the
 * status, or `status/reason`. docs/sources/gleif.md and the adapter's tests are built from this one
 * table; a combination not in it is `unknown`, never a guess.
 */
export const GLEIF_LEGAL_STATUSES: Readonly<
  Record<string, { status: CompanyLegalStatus; meaning: string }>
> = {
  ACTIVE: {
    status: 'active',
    meaning: 'legally registered and operating, as of the last report or update',
  },
  INACTIVE: {
    status: 'inactive',
    meaning: 'no longer legally registered and/or operating; no expiration reason given',
  },
  'INACTIVE/DISSOLVED': {
    status: 'dissolved',
    meaning: 'inactive: the entity ceased to operate',
  },
  // A merger or acquisition ends the entity as a legal person of its own (it is dissolved into
  // another): no longer a company anyone can contract with.
  'INACTIVE/CORPORATE_ACTION': {
    status: 'dissolved',
    meaning: 'inactive: the entity was acquired or merged with another entity',
  },
  'INACTIVE/OTHER': {
    status: 'inactive',
    meaning: 'inactive for another reason than dissolution or a corporate action',
  },
  NULL: { status: 'unknown', meaning: 'no entity status reported' },
};

/**
 * LEI registration statuses (`registration.status`, RegistrationStatusEnum). They say how current
 * the LEI record is, not whether the company exists, so they never change the legal status; they
 * are kept in the raw wording (`ACTIVE; LEI LAPSED`).
 */
export const GLEIF_REGISTRATION_STATUSES: Readonly<Record<string, string>> = {
  PENDING_VALIDATION: 'an application being validated',
  ISSUED: 'a current LEI, renewed on time',
  DUPLICATE: 'a second LEI for an entity that already has one',
  LAPSED: 'not renewed on time: the data may be out of date',
  MERGED: 'the entity merged into another entity and no longer operates',
  RETIRED: 'the entity ceased to operate without merging into another',
  ANNULLED: 'issued in error, or its data was found invalid',
  CANCELLED: 'abandoned before an LEI was issued',
  TRANSFERRED: 'moved to another LEI issuer',
  PENDING_TRANSFER: 'being moved to another LEI issuer',
  PENDING_ARCHIVAL: 'about to be archived after a transfer',
};

/**
 * Records that do not stand for an entity: a duplicate of another LEI, an LEI issued in error, or a
 * registration abandoned before issuance. They are never a match, so a company with a duplicate LEI
 * is not made ambiguous by its own duplicate.
 */
export const GLEIF_IGNORED_REGISTRATION_STATUSES: ReadonlySet<string> = new Set([
  'DUPLICATE',
  'ANNULLED',
  'CANCELLED',
]);

/** The status a company record gets, and the record's own words for it. */
export function gleifLegalStatus(
  entityStatus: string,
  expirationReason: string | null | undefined,
  registrationStatus: string,
): { company_legal_status: CompanyLegalStatus; raw_company_legal_status: string } {
  const key = expirationReason ? `${entityStatus}/${expirationReason}` : entityStatus;
  const known = Object.hasOwn(GLEIF_LEGAL_STATUSES, key) ? GLEIF_LEGAL_STATUSES[key] : undefined;
  const raw = expirationReason ? `${entityStatus} (${expirationReason})` : entityStatus;
  return {
    company_legal_status: known?.status ?? 'unknown',
    raw_company_legal_status: `${raw}; LEI ${registrationStatus}`,
  };
}
