import { ServiceError } from "../shared/errors.ts";

/**
 * Why a file could not be turned into text, for code that branches or counts; the message
 * is what a person reads (it becomes the document's failure reason).
 */
export type ParseFailure =
  | "password_protected"
  | "no_text_layer"
  | "unreadable_pdf"
  | "unknown_charset"
  | "not_text"
  | "malformed_csv"
  | "empty"
  | "invalid";

/**
 * The file was accepted by type but its content cannot be parsed. A client error (400): the
 * same bytes fail the same way every time, so a queue consumer must not retry it. The
 * message says what is wrong and what to do ("…; run OCR on it first").
 */
export class ParseError extends ServiceError {
  readonly reason: ParseFailure;

  constructor(message: string, options: { reason?: ParseFailure; cause?: unknown } = {}) {
    super(
      "bad_request",
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.reason = options.reason ?? "invalid";
  }
}
