/**
 * `google.longrunning.Operations` (google/longrunning/operations.proto, shipped
 * in protos/): the service a long-running RPC's operations are read and
 * cancelled with (docs/calls.md, "Long-running operations"), named once for the tool table, the
 * backends and the call.
 */

/** The service's full name. */
export const OPERATIONS_SERVICE = 'google.longrunning.Operations'

/** Its RPCs, as the proto declares them (what `implement()` of the service accepts). */
export const OPERATIONS_METHODS: readonly string[] = [
  'ListOperations',
  'GetOperation',
  'DeleteOperation',
  'CancelOperation',
  'WaitOperation',
]
