import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import { describeValidationFailure, errorBody } from "./errors.ts";

type HookResult = Parameters<
  NonNullable<ConstructorParameters<typeof OpenAPIHono>[0]>["defaultHook"] & {}
>[0];

/** Every validation failure becomes the spec's 400 `invalid_query`, naming the parameter and its constraint. */
export async function validationHook(result: HookResult, c: Context<AppEnv>): Promise<Response | undefined> {
  if (result.success) {
    return undefined;
  }
  const target = result.target as Parameters<typeof describeValidationFailure>[1];
  if (target === "query") {
    const repeated = repeatedQueryParameters(c, result.error.issues);
    if (repeated.length > 0) {
      const names = repeated.map(([name]) => `"${name}"`).join(", ");
      const got = repeated.map(([name, values]) => `${name}: ${JSON.stringify(values)}`).join("; ");
      return c.json(
        errorBody(
          "invalid_query",
          `query parameter ${names} was given more than once (got ${got}).`,
          `Send each of ${names} once, with a single value.`,
        ),
        400,
      );
    }
  }
  const body = target === "json" ? await c.req.json().catch(() => undefined) : undefined;
  const rawValue = (name: string): unknown => {
    if (target === "query") {
      return c.req.query(name);
    }
    if (target === "param") {
      return c.req.param(name);
    }
    if (target === "json" && body && typeof body === "object") {
      return name.split(".").reduce<unknown>((value, key) => (value as Record<string, unknown>)?.[key], body);
    }
    return undefined;
  };
  const { message, hint } = describeValidationFailure(result.error.issues, target, rawValue);
  return c.json(errorBody("invalid_query", message, hint), 400);
}

/** Query parameters of the failing issues that the request repeats (`?size=1&size=2`), with their values. */
function repeatedQueryParameters(
  c: Context<AppEnv>,
  issues: readonly { path: readonly PropertyKey[] }[],
): [string, string[]][] {
  const names = new Set(issues.map((issue) => String(issue.path[0] ?? "")).filter(Boolean));
  return [...names].flatMap((name): [string, string[]][] => {
    const values = c.req.queries(name) ?? [];
    return values.length > 1 ? [[name, values]] : [];
  });
}
