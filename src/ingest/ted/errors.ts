/**
 * A document that cannot be normalized as a TED notice at all: not a TED root (an HTML error page, another
 * XML vocabulary), an R2.0.9 form this module does not read, or a notice without any key (no publication
 * number nor notice id) or version date. Values that are merely unreadable are `FieldError`s instead.
 */
export class TedNoticeError extends Error {
  override readonly name = "TedNoticeError";
}
