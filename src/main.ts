import { runFromEnvironment } from "./server.ts";

// The only place the environment is handed to the service.
await runFromEnvironment(process.env);
