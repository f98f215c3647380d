import type { ReactNode } from "react";

/** An editable list in a fieldset: its items (`children`), then the button that adds one. */
export function ListFieldset({
  legend,
  className = "stack",
  addLabel,
  onAdd,
  addDisabled = false,
  children,
}: {
  legend: string;
  className?: string;
  addLabel: string;
  onAdd: () => void;
  addDisabled?: boolean;
  children: ReactNode;
}) {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {children}
      <div>
        <button type="button" disabled={addDisabled} onClick={onAdd}>
          {addLabel}
        </button>
      </div>
    </fieldset>
  );
}

/** An item's "Remove" button; its accessible name says which item (`what`). */
export function RemoveButton({
  what,
  onRemove,
  disabled = false,
}: {
  what: string;
  onRemove: () => void;
  disabled?: boolean;
}) {
  return (
    <button type="button" aria-label={`Remove ${what}`} disabled={disabled} onClick={onRemove}>
      Remove
    </button>
  );
}
