import { CLIENT_OPENAPI_FILE, CLIENT_SCHEMA_FILE, generateClientFiles } from "./agent-openapi.ts";

await generateClientFiles();
process.stdout.write(`wrote ${CLIENT_OPENAPI_FILE}\nwrote ${CLIENT_SCHEMA_FILE}\n`);
