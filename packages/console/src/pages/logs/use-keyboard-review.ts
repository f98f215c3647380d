import { useCallback, useEffect, useRef, useState } from "react";
import {
  commandForKey,
  INITIAL_REVIEW,
  type ReviewCommand,
  type ReviewEffect,
  type ReviewState,
  type ReviewView,
  review,
} from "./keyboard-review.ts";

/**
 * Binds the review state machine (keyboard-review.ts) to the page: keys pressed anywhere but
 * in a field or an open dialog drive it, and its effects (rate, comment, turn the page,
 * announce) go to `onEffect`. `dispatch` lets buttons and clicks use the same transitions.
 */
export function useKeyboardReview(view: ReviewView, onEffect: (effect: ReviewEffect) => void) {
  const [state, setState] = useState<ReviewState>(INITIAL_REVIEW);
  // The listener reads the latest state and view without being re-attached on every render.
  const latest = useRef({ state, view, onEffect });
  latest.current = { state, view, onEffect };

  const dispatch = useCallback((command: ReviewCommand) => {
    const { state: current, view: shown, onEffect: apply } = latest.current;
    const step = review(current, command, shown);
    latest.current.state = step.state;
    setState(step.state);
    for (const effect of step.effects) apply(effect);
  }, []);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      const target = event.target as HTMLElement | null;
      const command = commandForKey({
        key: event.key,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        altKey: event.altKey,
        inEditable: isEditable(target) || target?.closest("[role=dialog]") != null,
      });
      if (!command) return;
      // Arrow keys and space keep their meaning on controls that use them.
      if (event.key.startsWith("Arrow") && target?.closest("select, [role=slider]")) return;
      event.preventDefault();
      dispatch(command);
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [dispatch]);

  const moveTo = useCallback((index: number) => {
    latest.current.state = { ...latest.current.state, cursor: index };
    setState(latest.current.state);
  }, []);

  const setSelected = useCallback((selected: readonly string[]) => {
    latest.current.state = { ...latest.current.state, selected };
    setState(latest.current.state);
  }, []);

  return { state, dispatch, moveTo, setSelected };
}

/** A field that takes typed text or arrow keys: review keys and focus moves leave it alone. */
export function isEditable(element: Element | null): boolean {
  if (!(element instanceof HTMLElement)) return false;
  if (element.isContentEditable) return true;
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) {
    // Checkboxes and buttons do not take typed text: review keys still work on them.
    return !["checkbox", "radio", "button", "submit", "reset"].includes(element.type);
  }
  return false;
}
