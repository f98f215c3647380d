import { z } from "zod";

export const MAX_COMMENT_CHARS = 10_000;
/** a commenter's name or email */
export const MAX_COMMENTER_CHARS = 320;

const COMMENT_REQUIRED = "is required: the comment text";
const commenter = z
  .string({ error: `must be a string of at most ${MAX_COMMENTER_CHARS} characters` })
  .max(MAX_COMMENTER_CHARS, {
    error: `must be a string of at most ${MAX_COMMENTER_CHARS} characters`,
  });

/** E10 (docs/api.md#e10-comment-on-a-log): the commenter defaults to the calling key. */
export const CommentOnLogInput = z
  .object({
    comment: z
      .string({ error: COMMENT_REQUIRED })
      .min(1, { error: COMMENT_REQUIRED })
      .max(MAX_COMMENT_CHARS, { error: `is longer than ${MAX_COMMENT_CHARS} characters` })
      .refine((text) => text.trim() !== "", { error: COMMENT_REQUIRED }),
    name: commenter.optional(),
    email: commenter.optional(),
  })
  .strict();
export type CommentOnLogInput = z.output<typeof CommentOnLogInput>;
