import { Context } from "effect"

/** The buyer data collection page (`{data_collection_url}` of the spec), chosen by the host. */
export class DataCollectionPage extends Context.Service<DataCollectionPage, {
  /** Absolute URL without query; options link to it with `?paymentId=…&account=…`. */
  readonly url: string
}>()("@paygate/domain/DataCollectionPage") {}
