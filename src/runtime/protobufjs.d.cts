import type * as protobufjs from 'protobufjs'

/** protobufjs `ext/protojson`: protobuf JSON over reflected types. */
export interface ProtoJson {
  fromJson(type: protobufjs.Type, json: unknown): protobufjs.Message<object>
  toJson(type: protobufjs.Type, message: object): unknown
}

/** `{ protobuf, protojson }`, `require`d the first time. */
export declare function loadProtobuf(): { protobuf: typeof protobufjs; protojson: ProtoJson }
