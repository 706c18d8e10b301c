import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/**
 * Compiles a test contract with solc-js (the npm `solc` package: the compiler as wasm, nothing downloaded)
 * and caches the result under the OS temp dir, keyed by the source, the compiler version and the settings, so
 * a suite pays the ~2 s compile once per machine and change.
 */

/** What the tests need of a compiled contract. */
export interface CompiledContract {
  abi: unknown[];
  /** Runtime bytecode (what `hardhat_setCode` places at an address), 0x-prefixed. */
  runtime: `0x${string}`;
}

interface SolcModule {
  version(): string;
  compile(input: string): string;
}

const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: { "*": { "*": ["abi", "evm.deployedBytecode.object"] } },
};

/** Compiles `contractName` from a Solidity file (cached; see the module comment). */
export async function compileContract(sourcePath: string, contractName: string): Promise<CompiledContract> {
  const source = await readFile(sourcePath, "utf8");
  const require = createRequire(import.meta.url);
  const solcVersion = (require("solc/package.json") as { version: string }).version;
  const key = createHash("sha256")
    .update(JSON.stringify({ source, contractName, solcVersion, SETTINGS }))
    .digest("hex")
    .slice(0, 32);
  const cacheDir = join(tmpdir(), "procurement-intel-solc");
  const cachePath = join(cacheDir, `${contractName}-${key}.json`);
  try {
    return JSON.parse(await readFile(cachePath, "utf8")) as CompiledContract;
  } catch {
    // Not cached yet: compile below.
  }
  const solc = require("solc") as SolcModule;
  const file = basename(sourcePath);
  const input = { language: "Solidity", sources: { [file]: { content: source } }, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<
      string,
      Record<string, { abi: unknown[]; evm: { deployedBytecode: { object: string } } }>
    >;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) {
    throw new Error(`solc ${solcVersion} failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  }
  const contract = output.contracts?.[file]?.[contractName];
  if (!contract) {
    throw new Error(`solc produced no contract ${contractName} from ${file}`);
  }
  const compiled: CompiledContract = {
    abi: contract.abi,
    runtime: `0x${contract.evm.deployedBytecode.object}`,
  };
  await mkdir(cacheDir, { recursive: true });
  // Written aside then renamed: two suites compiling at once never read half a file.
  const partial = `${cachePath}.${process.pid}.tmp`;
  await writeFile(partial, JSON.stringify(compiled));
  await rename(partial, cachePath);
  return compiled;
}
