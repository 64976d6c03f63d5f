/**
 * The wrapper well-known types (`google.protobuf.Int64Value`, ...) and the
 * scalar each wraps: their JSON is that scalar's (docs/mapping.md, "Input schema: types"). The
 * schema stage, the code generator's codecs and `.d.ts`, and the runtime's
 * protobuf JSON checks all read this one table.
 */
export const WRAPPER_SCALARS = {
  DoubleValue: 'double',
  FloatValue: 'float',
  Int64Value: 'int64',
  UInt64Value: 'uint64',
  Int32Value: 'int32',
  UInt32Value: 'uint32',
  BoolValue: 'bool',
  StringValue: 'string',
  BytesValue: 'bytes',
} as const

/** The wrapper types' short names (`Int64Value`), in the table's order. */
export const WRAPPER_NAMES = Object.keys(WRAPPER_SCALARS) as Array<keyof typeof WRAPPER_SCALARS>
