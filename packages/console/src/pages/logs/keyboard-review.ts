/**
 * Keyboard review of logs (issue 16, item 6): a pure state machine, so every key's meaning is
 * tested without a browser; `use-keyboard-review.ts` binds it to the page.
 *
 * The cursor is an index into the page of logs on screen. Moving past either end of the page
 * asks for the neighbouring page and says where the cursor lands there. Rating keys act on the
 * selection when there is one (as a mail client's actions do), else on the log under the
 * cursor, which then advances: one key per judgement is what lets a reviewer get through 100
 * logs in minutes.
 */

export type ReviewCommand =
  | "next"
  | "previous"
  | "rate-positive"
  | "rate-negative"
  | "rate-clear"
  | "comment"
  | "toggle-select"
  | "select-page"
  | "next-page"
  | "previous-page"
  | "help"
  | "escape";

/** What the help panel lists, in order: the keys of each command. */
export const REVIEW_KEYS: readonly { command: ReviewCommand; keys: string[]; label: string }[] = [
  { command: "next", keys: ["j", "↓"], label: "Next log" },
  { command: "previous", keys: ["k", "↑"], label: "Previous log" },
  { command: "rate-positive", keys: ["+", "u"], label: "Thumbs up (the selection, if any)" },
  { command: "rate-negative", keys: ["-", "d"], label: "Thumbs down (the selection, if any)" },
  { command: "rate-clear", keys: ["0"], label: "Clear the rating" },
  { command: "comment", keys: ["c"], label: "Comment on the log" },
  { command: "toggle-select", keys: ["x"], label: "Select or unselect the log" },
  { command: "select-page", keys: ["a"], label: "Select every log on the page, or none" },
  { command: "next-page", keys: ["n", "]"], label: "Next page" },
  { command: "previous-page", keys: ["p", "["], label: "Previous page" },
  { command: "help", keys: ["?"], label: "Show or hide these keys" },
  { command: "escape", keys: ["Esc"], label: "Close help, clear the selection" },
];

const KEY_COMMANDS: Record<string, ReviewCommand> = {
  j: "next",
  ArrowDown: "next",
  k: "previous",
  ArrowUp: "previous",
  "+": "rate-positive",
  "=": "rate-positive",
  u: "rate-positive",
  "-": "rate-negative",
  _: "rate-negative",
  d: "rate-negative",
  "0": "rate-clear",
  c: "comment",
  x: "toggle-select",
  a: "select-page",
  n: "next-page",
  "]": "next-page",
  p: "previous-page",
  "[": "previous-page",
  "?": "help",
  Escape: "escape",
};

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  metaKey?: boolean;
  altKey?: boolean;
  /** the key was typed into a text field, a select or an editable element */
  inEditable?: boolean;
}

/**
 * The command a key press means, or null. Keys typed into a field stay the field's (the
 * comment box takes "c" and "j"), and keys with Ctrl, Cmd or Alt stay the browser's.
 */
export function commandForKey(event: KeyLike): ReviewCommand | null {
  if (event.ctrlKey || event.metaKey || event.altKey) return null;
  if (event.inEditable) return null;
  return KEY_COMMANDS[event.key] ?? null;
}

export interface ReviewState {
  /** index in the page; negative counts from the end (-1: the last), for a page not yet loaded */
  cursor: number;
  /** ids of the selected logs (of any page) */
  selected: readonly string[];
  helpOpen: boolean;
}

export const INITIAL_REVIEW: ReviewState = { cursor: 0, selected: [], helpOpen: false };

/** The page on screen. */
export interface ReviewView {
  ids: readonly string[];
  page: number;
  hasNextPage: boolean;
  /** the logs on screen are the previous view's, kept while the new one loads */
  stale?: boolean;
}

export type ReviewEffect =
  | { type: "rate"; ids: string[]; rating: boolean | null }
  | { type: "comment"; id: string }
  | { type: "go-to-page"; page: number }
  | { type: "announce"; message: string };

export interface ReviewStep {
  state: ReviewState;
  effects: ReviewEffect[];
}

/** The cursor's index in a page of `count` logs (-1 when the page is empty). */
export function cursorIndex(state: ReviewState, count: number): number {
  if (count === 0) return -1;
  const index = state.cursor < 0 ? count + state.cursor : state.cursor;
  return Math.min(Math.max(index, 0), count - 1);
}

export function review(state: ReviewState, command: ReviewCommand, view: ReviewView): ReviewStep {
  const count = view.ids.length;
  const at = cursorIndex(state, count);
  const current = at >= 0 ? view.ids[at] : undefined;
  const step = (next: Partial<ReviewState>, ...effects: ReviewEffect[]): ReviewStep => ({
    state: { ...state, ...next },
    effects,
  });

  // Keys act on what is on screen; while a new page or filter loads, that is the old list.
  if (view.stale && command !== "help" && command !== "escape") {
    return step({}, { type: "announce", message: "Still loading" });
  }
  switch (command) {
    case "next":
      if (at < count - 1) return step({ cursor: at + 1 });
      if (view.hasNextPage) return step({ cursor: 0 }, { type: "go-to-page", page: view.page + 1 });
      return step({ cursor: at }, { type: "announce", message: "Last log" });
    case "previous":
      if (at > 0) return step({ cursor: at - 1 });
      if (view.page > 1) return step({ cursor: -1 }, { type: "go-to-page", page: view.page - 1 });
      return step({ cursor: 0 }, { type: "announce", message: "First log" });
    case "next-page":
      return view.hasNextPage
        ? step({ cursor: 0 }, { type: "go-to-page", page: view.page + 1 })
        : step({}, { type: "announce", message: "Last page" });
    case "previous-page":
      return view.page > 1
        ? step({ cursor: 0 }, { type: "go-to-page", page: view.page - 1 })
        : step({}, { type: "announce", message: "First page" });
    case "rate-positive":
    case "rate-negative":
    case "rate-clear": {
      const rating =
        command === "rate-positive" ? true : command === "rate-negative" ? false : null;
      if (state.selected.length > 0) {
        return step({}, { type: "rate", ids: [...state.selected], rating });
      }
      if (!current) return step({});
      const rate: ReviewEffect = { type: "rate", ids: [current], rating };
      if (at < count - 1) return step({ cursor: at + 1 }, rate);
      return step({ cursor: at }, rate);
    }
    case "comment":
      return current ? step({}, { type: "comment", id: current }) : step({});
    case "toggle-select": {
      if (!current) return step({});
      const selected = state.selected.includes(current)
        ? state.selected.filter((id) => id !== current)
        : [...state.selected, current];
      return step({ selected });
    }
    case "select-page": {
      const all = view.ids.every((id) => state.selected.includes(id));
      const selected = all
        ? state.selected.filter((id) => !view.ids.includes(id))
        : [...state.selected, ...view.ids.filter((id) => !state.selected.includes(id))];
      return step({ selected });
    }
    case "help":
      return step({ helpOpen: !state.helpOpen });
    case "escape":
      if (state.helpOpen) return step({ helpOpen: false });
      return step({ selected: [] });
  }
}

/** What a screen reader hears after ratings were saved (the page's aria-live region). */
export function ratingAnnouncement(count: number, rating: boolean | null): string {
  const what = rating === true ? "thumbs up" : rating === false ? "thumbs down" : "no rating";
  return count === 1 ? `Rated ${what}` : `Rated ${count} logs ${what}`;
}
