/** A buyer or company as other records name it: its id (for the company and buyer verbs) and its name. */
export interface PartyRef {
  id: number;
  name: string;
}
