/**
 * The query schemas of the REST routes are the verbs' input schemas (domain/params.ts and the verb files), so
 * REST and MCP validate with the same limits. Re-exported here under their REST names.
 */
export {
  CpvParam,
  DateParam,
  NameFragmentParam,
  PageInputSchema as PageQuerySchema,
  PageParam,
  RegionParam,
  SizeParam,
} from "../../domain/params.ts";
export { RenewalsInputSchema as RenewalsQuerySchema } from "../../domain/renewals/list-renewals.ts";
export { SearchInputSchema as SearchQuerySchema } from "../../domain/search/search-notices.ts";
