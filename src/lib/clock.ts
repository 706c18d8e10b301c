/** Domain logic never reads the wall clock directly: it gets a `Clock` so tests can move time. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
