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
