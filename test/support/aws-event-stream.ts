import { crc32 } from "node:zlib";

/**
 * AWS's event stream framing (`application/vnd.amazon.eventstream`, what Bedrock's
 * InvokeModelWithResponseStream answers): each message is a 12-byte prelude (total length, headers
 * length, CRC32 of those 8 bytes), string headers, the payload and a CRC32 of everything before it.
 * For the scripted Bedrock endpoint (fake-model-providers.ts); `decodeEventStream` reads it back in tests.
 */
const STRING = 7;

export function encodeEventStreamMessage(headers: Readonly<Record<string, string>>, payload: Buffer): Buffer {
  const encoded = Object.entries(headers).map(([name, value]) => {
    const nameBytes = Buffer.from(name, "utf8");
    const valueBytes = Buffer.from(value, "utf8");
    const head = Buffer.alloc(1 + nameBytes.length + 1 + 2);
    head.writeUInt8(nameBytes.length, 0);
    nameBytes.copy(head, 1);
    head.writeUInt8(STRING, 1 + nameBytes.length);
    head.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
    return Buffer.concat([head, valueBytes]);
  });
  const headerBytes = Buffer.concat(encoded);
  const total = 12 + headerBytes.length + payload.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const body = Buffer.concat([prelude, headerBytes, payload]);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, trailer]);
}

/** Bedrock's `chunk` event: the Messages API event JSON as base64 `bytes`. */
export function encodeBedrockChunk(event: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(event), "utf8").toString("base64");
  return encodeEventStreamMessage(
    { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
    Buffer.from(JSON.stringify({ bytes }), "utf8"),
  );
}

export type EventStreamMessage = { headers: Record<string, string>; payload: Buffer };

/** The messages of a whole stream; throws on a bad length or CRC (as the AWS SDK's decoder does). */
export function decodeEventStream(data: Buffer): EventStreamMessage[] {
  const messages: EventStreamMessage[] = [];
  let offset = 0;
  while (offset < data.length) {
    const total = data.readUInt32BE(offset);
    const headersLength = data.readUInt32BE(offset + 4);
    const message = data.subarray(offset, offset + total);
    if (message.length !== total) throw new Error("event stream: truncated message");
    if (crc32(message.subarray(0, 8)) !== message.readUInt32BE(8))
      throw new Error("event stream: prelude CRC");
    if (crc32(message.subarray(0, total - 4)) !== message.readUInt32BE(total - 4))
      throw new Error("event stream: message CRC");
    const headers: Record<string, string> = {};
    let at = 12;
    while (at < 12 + headersLength) {
      const nameLength = message.readUInt8(at);
      const name = message.subarray(at + 1, at + 1 + nameLength).toString("utf8");
      const type = message.readUInt8(at + 1 + nameLength);
      if (type !== STRING) throw new Error(`event stream: header type ${type} not modelled`);
      const valueLength = message.readUInt16BE(at + 2 + nameLength);
      headers[name] = message
        .subarray(at + 4 + nameLength, at + 4 + nameLength + valueLength)
        .toString("utf8");
      at += 4 + nameLength + valueLength;
    }
    messages.push({ headers, payload: message.subarray(12 + headersLength, total - 4) });
    offset += total;
  }
  return messages;
}
