// The TypeScript column of FuzzVerifierParity (sdk/go/verifyparity/verify_parity_test.go):
// reads one JSON request a line on stdin and answers one JSON line on stdout,
// the verdict of verdict.mjs.
import { createInterface } from 'node:readline';
import { verdict } from './verdict.mjs';

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) process.stdout.write(JSON.stringify(await verdict(JSON.parse(line))) + '\n');
