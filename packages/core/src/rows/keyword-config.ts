/**
 * The text search configuration of the keyword index. `english` stems ("searching" matches
 * "search") and drops stop words, which is what keyword search over prose wants.
 */
export const KEYWORD_CONFIG = "english";
