import { NotFoundError } from "../errors.ts";

/** The 404 of every company verb, with where company ids come from. */
export function companyNotFound(id: number): NotFoundError {
  return new NotFoundError(
    `No company with id ${id}.`,
    "Company ids come from GET /v1/search (field company.id) and from winner.id on awards.",
  );
}
