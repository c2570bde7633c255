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
  COMPANIES_HOUSE_STREAM_KEY: {
    pattern: /^[A-Za-z0-9-]{8,100}$/,
    what: 'a Companies House streaming API key',
    meaning:
      "Key of Companies House's streaming API, a key of its own (a REST key is refused there); `FEEDS=companies_house` follows the company profile stream with it, so a GB company's change reaches its monitors within seconds",
  },
  CVR_USERNAME: {
    pattern: /^[^\s:]{1,200}$/,
    what: 'a CVR system-to-system user name',
    meaning:
      "User name of Erhvervsstyrelsen's CVR system-to-system access (free, from cvrselvbetjening@erst.dk); without it and `CVR_PASSWORD` the CVR source is off and DK numbers stay with GLEIF in live",
  },
  CVR_PASSWORD: {
    pattern: /^\S{1,200}$/,
    what: 'a CVR system-to-system password',
    meaning:
      "Password of Erhvervsstyrelsen's CVR system-to-system access, sent as HTTP basic credentials and never logged; without it and `CVR_USERNAME` the CVR source is off",
  },
  // Bolagsverket's API gateway (WSO2) issues OAuth client credentials of URL-safe characters.
  BOLAGSVERKET_CLIENT_ID: {
    pattern: /^[A-Za-z0-9._~-]{8,200}$/,
    what: 'a Bolagsverket API client ID',
    meaning:
      "OAuth client ID of Bolagsverket's free API for high-value datasets (värdefulla datamängder); with `BOLAGSVERKET_CLIENT_SECRET` it turns the Bolagsverket source on, and without both SE is answered by GLEIF alone in live",
  },
  BOLAGSVERKET_CLIENT_SECRET: {
    pattern: /^[A-Za-z0-9._~-]{8,200}$/,
    what: 'a Bolagsverket API client secret',
    meaning: 'OAuth client secret that goes with `BOLAGSVERKET_CLIENT_ID` (never logged)',
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
