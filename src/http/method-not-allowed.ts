import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import { errorBody } from "./errors.ts";

/**
 * A request whose path the service knows but whose method it does not answer is a 405 with `Allow`, in the
 * spec's error envelope, rather than the 404 of an unknown path: the caller learns the path is right and which
 * method to use.
 */

/** The methods that answer `path`, from the app's routes (`METHOD /path/:param`); empty when none does. */
export function allowedMethods(routes: readonly string[], path: string): string[] {
  const methods = new Set<string>();
  const segments = path.split("/");
  for (const route of routes) {
    const [method = "", pattern = ""] = route.split(" ");
    const parts = pattern.split("/");
    const matches =
      parts.length === segments.length &&
      parts.every((part, i) => (part.startsWith(":") ? (segments[i] ?? "") !== "" : part === segments[i]));
    if (matches) {
      methods.add(method);
    }
  }
  if (methods.size === 0) {
    return [];
  }
  if (methods.has("GET")) {
    methods.add("HEAD");
  }
  // Preflights are answered on every path (CORS).
  methods.add("OPTIONS");
  const order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
  return [...methods].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

export function methodNotAllowed(c: Context<AppEnv>, allow: readonly string[]): Response {
  const usable = allow.filter((m) => m !== "HEAD" && m !== "OPTIONS");
  c.header("Allow", allow.join(", "));
  return c.json(
    errorBody(
      "method_not_allowed",
      `${c.req.method} is not answered on ${c.req.path}; it answers ${allow.join(", ")}.`,
      `Send the request as ${usable.map((m) => `${m} ${c.req.path}`).join(" or ")} (see GET /openapi.json).`,
    ),
    405,
  );
}
