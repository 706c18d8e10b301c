/** A buyer or company as other records name it: its id (for the company and buyer verbs) and its name. */
export interface PartyRef {
  id: number;
  name: string;
}

/** The reference of a party row joined by id and name, or null when either is missing (never a nameless party). */
export function partyRef(id: number | null, name: string | null): PartyRef | null {
  return id !== null && name !== null ? { id, name } : null;
}
