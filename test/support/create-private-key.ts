import { generateKeyPairSync } from "node:crypto";

/** A fresh RSA key in PEM (PKCS#1), the kind GitHub hands an App. */
export function createPrivateKey(): string {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;
}
