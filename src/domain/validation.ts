import type { z } from "zod";

/**
 * Words zod issues for callers (agents first): each message names the parameter and its constraint, the hint
 * says how to fix the first one. REST uses it for its 400 (query parameters, path parameters, body fields), MCP
 * for invalid tool arguments, so both say the same thing about the same limit.
 */
export interface IssueWording {
  /** What a named value is called: "query parameter", "argument", … */
  where: string;
  /** What the whole input is called, for issues without a path ("body", "query", "arguments"). */
  whole: string;
  /** Hint for a whole-input issue; default: the issue's own message. */
  wholeHint?: string | undefined;
  /** Where the caller finds the schema ("GET /openapi.json", "tools/list"). */
  reference: string;
  /** The value the caller sent for a name, quoted back in the message. */
  rawValue(name: string): unknown;
}

export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  wording: IssueWording,
): { message: string; hint: string } {
  const described = issues.map((issue) => describeIssue(issue, wording));
  return {
    message: described.map((d) => d.message).join("; "),
    hint: described[0]?.hint ?? `Check the request against ${wording.reference}.`,
  };
}

function describeIssue(issue: z.core.$ZodIssue, wording: IssueWording): { message: string; hint: string } {
  const { where, reference } = wording;
  const name = issue.path.map(String).join(".");
  if (!name) {
    if (issue.code === "unrecognized_keys") {
      const keys = issue.keys.map((k) => `"${k}"`).join(", ");
      return {
        message: `Unknown ${where}(s) ${keys}.`,
        hint: `Remove ${keys}; see ${reference} for the fields.`,
      };
    }
    return {
      message: `Request ${wording.whole} is invalid: ${issue.message}.`,
      hint: wording.wholeHint ?? `Send the ${wording.whole} as described in ${reference}.`,
    };
  }
  const raw = wording.rawValue(name);
  const got = raw === undefined ? "" : ` (got ${JSON.stringify(raw)})`;
  const subject = `${where} "${name}"`;
  // A schema may phrase its own constraint ({ error: "a positive integer" }); zod's defaults start "Invalid"/"Too".
  if (!/^(Invalid|Too (big|small))/.test(issue.message) && issue.code !== "unrecognized_keys") {
    // The message states the constraint; the hint does not repeat it.
    return {
      message: `${subject} must be ${issue.message}${got}.`,
      hint: correctIt(name, reference),
    };
  }
  switch (issue.code) {
    case "too_big": {
      const max = String(issue.maximum);
      if (issue.origin === "string") {
        return {
          message: `${subject} must be at most ${max} characters${got}.`,
          hint: `Shorten "${name}" to ${max} characters or fewer.`,
        };
      }
      return {
        message: `${subject} must be at most ${max}${got}.`,
        hint: `Send "${name}" no greater than ${max}.`,
      };
    }
    case "too_small": {
      const min = String(issue.minimum);
      if (issue.origin === "string") {
        return {
          message: `${subject} must be at least ${min} characters${got}.`,
          hint: `Send at least ${min} characters in "${name}", or leave it out.`,
        };
      }
      return {
        message: `${subject} must be at least ${min}${got}.`,
        hint: `Send "${name}" no smaller than ${min}.`,
      };
    }
    case "invalid_type": {
      if (raw === undefined) {
        return { message: `${subject} is required.`, hint: `Add "${name}" (see ${reference}).` };
      }
      const expected = issue.expected === "int" ? "an integer" : `a ${issue.expected}`;
      return { message: `${subject} must be ${expected}${got}.`, hint: `Send "${name}" as ${expected}.` };
    }
    case "invalid_value": {
      const allowed = issue.values.map(String).join(" | ");
      return {
        message: `${subject} must be one of ${allowed}${got}.`,
        hint: `Set "${name}" to one of the listed values.`,
      };
    }
    case "invalid_format":
      return {
        message: `${subject} must be ${issue.message}${got}.`,
        hint: correctIt(name, reference),
      };
    case "unrecognized_keys": {
      const keys = issue.keys.map((k) => `"${k}"`).join(", ");
      return { message: `Unknown field(s) ${keys} in ${subject}.`, hint: `Remove ${keys}.` };
    }
    default:
      return {
        message: `${subject} is invalid: ${issue.message}${got}.`,
        hint: `Fix "${name}" as described in ${reference}.`,
      };
  }
}

function correctIt(name: string, reference: string): string {
  return `Correct "${name}" to that form and retry (${reference} has its schema).`;
}
