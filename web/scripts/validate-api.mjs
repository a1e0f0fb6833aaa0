// Validates the hub's OpenAPI document against the OpenAPI 3.x schema and
// fails (exit 1) when it is not a valid document.
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { specPath } from './spec-path.mjs';

const spec = specPath();
const validator = new Validator();
const res = await validator.validate(JSON.parse(readFileSync(spec, 'utf8')));
if (!res.valid) {
  console.error(`${spec} is not a valid OpenAPI ${validator.version} document:`);
  console.error(JSON.stringify(res.errors, null, 2).slice(0, 4000));
  process.exit(1);
}
console.log(`${spec} is a valid OpenAPI ${validator.version} document`);
