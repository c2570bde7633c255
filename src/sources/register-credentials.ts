/**
 * The credentials live registers need, by environment variable. A register lists the variables it
 * needs (`credentials` in LIVE_SOURCES) and is off until every one of them is set; configuration
 * reads and checks each here, and the README's variable table lists them from here.
 */
export const REGISTER_CREDENTIALS = {
  COMPANIES_HOUSE_API_KEY: {
    pattern: /^[A-Za-z0-9-]{8,100}$/,
    what: 'a Companies House API key',
    meaning:
      'Key of the Companies House public data API; without it the Companies House source is off and GB registration numbers answer `not_supported` in live',
  },
  REGON_API_KEY: {
    // GUS issues 20-character keys of letters and digits (the public test key is
    // abcde12345abcde12345); a little room either way in case it lengthens them.
    pattern: /^[A-Za-z0-9]{16,64}$/,
    what: 'a REGON BIR user key',
    meaning:
      "User key of Statistics Poland's REGON BIR1.1 service (free, from GUS); without it the REGON source is off and PL VAT numbers and REGONs answer `not_supported` in live",
  },
} as const satisfies Record<string, { pattern: RegExp; what: string; meaning: string }>;

export type CredentialVariable = keyof typeof REGISTER_CREDENTIALS;

/** The configured credentials: each variable that is set, with its value. */
export type Credentials = Partial<Record<CredentialVariable, string>>;

export const CREDENTIAL_VARIABLES = Object.keys(REGISTER_CREDENTIALS) as CredentialVariable[];
