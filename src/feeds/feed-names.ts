/** The register change feeds a worker may follow (FEEDS). */
export const FEED_NAMES = ['companies_house', 'brreg'] as const;
export type FeedName = (typeof FEED_NAMES)[number];

/** What configuration says of the feeds (config/registers.ts reads it from the environment). */
export interface FeedsConfig {
  /** The feeds followed (FEEDS; none unless configured). */
  enabled: FeedName[];
  /** COMPANIES_HOUSE_STREAM_BASE_URL. */
  companiesHouseStreamBaseUrl: string;
}
