import { describe, expect, it } from "vitest";
import {
  commandForKey,
  INITIAL_REVIEW,
  type ReviewCommand,
  type ReviewState,
  type ReviewView,
  ratingAnnouncement,
  review,
} from "../src/pages/logs/keyboard-review.ts";

const view: ReviewView = { ids: ["a", "b", "c"], page: 1, hasNextPage: true };

/** Runs keys in order; returns the last state and every effect. */
function press(keys: string[], start: ReviewState = INITIAL_REVIEW, on: ReviewView = view) {
  let state = start;
  const effects = [];
  for (const key of keys) {
    const command = commandForKey({ key });
    if (!command) throw new Error(`no command for ${key}`);
    const step = review(state, command, on);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

describe("keyboard review", () => {
  it("maps j/k and the arrows to next and previous, and leaves typed text alone", () => {
    expect(commandForKey({ key: "j" })).toBe("next");
    expect(commandForKey({ key: "ArrowDown" })).toBe("next");
    expect(commandForKey({ key: "k" })).toBe("previous");
    expect(commandForKey({ key: "ArrowUp" })).toBe("previous");
    expect(commandForKey({ key: "j", inEditable: true })).toBeNull();
    expect(commandForKey({ key: "c", ctrlKey: true })).toBeNull();
    expect(commandForKey({ key: "r", metaKey: true })).toBeNull();
    expect(commandForKey({ key: "q" })).toBeNull();
  });

  it("maps +/- and u/d to ratings, 0 to clearing, c to comment", () => {
    const commands: [string, ReviewCommand][] = [
      ["+", "rate-positive"],
      ["u", "rate-positive"],
      ["-", "rate-negative"],
      ["d", "rate-negative"],
      ["0", "rate-clear"],
      ["c", "comment"],
      ["x", "toggle-select"],
      ["?", "help"],
      ["Escape", "escape"],
    ];
    for (const [key, command] of commands) expect(commandForKey({ key })).toBe(command);
  });

  it("rates the log under the cursor and moves to the next one", () => {
    const { state, effects } = press(["j", "+", "-"]);
    expect(effects).toEqual([
      { type: "rate", ids: ["b"], rating: true },
      { type: "rate", ids: ["c"], rating: false },
    ]);
    // the last log stays under the cursor once rated
    expect(state.cursor).toBe(2);
  });

  it("turns the page past either end and lands on the right log", () => {
    const forward = press(["j", "j", "j"]);
    expect(forward.effects).toEqual([{ type: "go-to-page", page: 2 }]);
    expect(forward.state.cursor).toBe(0);

    const onPage2 = { ...view, page: 2 };
    const back = press(["k"], INITIAL_REVIEW, onPage2);
    expect(back.effects).toEqual([{ type: "go-to-page", page: 1 }]);
    // -1: the last log of the previous page, whatever its length
    expect(back.state.cursor).toBe(-1);

    const atStart = press(["k"]);
    expect(atStart.effects).toEqual([{ type: "announce", message: "First log" }]);
    const lastPage = press(["j", "j", "j"], INITIAL_REVIEW, { ...view, hasNextPage: false });
    expect(lastPage.state.cursor).toBe(2);
    expect(lastPage.effects).toEqual([{ type: "announce", message: "Last log" }]);
  });

  it("rates a selection at once and keeps the cursor where it is", () => {
    const { state, effects } = press(["x", "j", "j", "x", "-"]);
    expect(state.selected).toEqual(["a", "c"]);
    expect(effects).toEqual([{ type: "rate", ids: ["a", "c"], rating: false }]);
    expect(state.cursor).toBe(2);
    expect(press(["Escape"], state).state.selected).toEqual([]);
  });

  it("selects the whole page, or none when it is all selected", () => {
    expect(press(["a"]).state.selected).toEqual(["a", "b", "c"]);
    expect(press(["x", "a", "a"]).state.selected).toEqual([]);
  });

  it("asks for the comment box of the current log, and toggles help", () => {
    expect(press(["j", "c"]).effects).toEqual([{ type: "comment", id: "b" }]);
    const help = press(["?"]);
    expect(help.state.helpOpen).toBe(true);
    // Escape closes help first, without dropping the selection
    const withSelection = press(["x", "?", "Escape"]);
    expect(withSelection.state).toMatchObject({ helpOpen: false, selected: ["a"] });
  });

  it("does nothing on an empty page", () => {
    const empty = { ids: [], page: 1, hasNextPage: false };
    expect(press(["+", "c", "x"], INITIAL_REVIEW, empty).effects).toEqual([]);
  });

  it("announces ratings for screen readers", () => {
    expect(ratingAnnouncement(1, true)).toBe("Rated thumbs up");
    expect(ratingAnnouncement(4, false)).toBe("Rated 4 logs thumbs down");
    expect(ratingAnnouncement(1, null)).toBe("Rated no rating");
  });

  it("ignores review keys while the next list loads, except help and escape", () => {
    const stale = { ...view, stale: true };
    expect(press(["+", "j", "n"], INITIAL_REVIEW, stale).effects).toEqual([
      { type: "announce", message: "Still loading" },
      { type: "announce", message: "Still loading" },
      { type: "announce", message: "Still loading" },
    ]);
    expect(press(["?"], INITIAL_REVIEW, stale).state.helpOpen).toBe(true);
  });
});
