import { Dialog } from "radix-ui";
import { type ReactNode, useState } from "react";

/**
 * A form in a Radix Dialog (focus trapped, Escape closes, focus returns to the trigger). The
 * form is mounted only while open, so each opening starts fresh; `children` gets `close`.
 */
export function FormDialog({
  trigger,
  title,
  children,
}: {
  trigger: ReactNode;
  title: ReactNode;
  children: (close: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>{trigger}</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog" aria-describedby={undefined}>
          <Dialog.Title>{title}</Dialog.Title>
          {open && children(() => setOpen(false))}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** A dialog form's buttons: Cancel (closes it) and the submit, which says when it is busy. */
export function DialogActions({
  label,
  pendingLabel,
  pending,
  disabled = false,
}: {
  label: string;
  pendingLabel: string;
  pending: boolean;
  disabled?: boolean;
}) {
  return (
    <div className="row end">
      <Dialog.Close asChild>
        <button type="button">Cancel</button>
      </Dialog.Close>
      <button type="submit" className="primary" disabled={pending || disabled}>
        {pending ? pendingLabel : label}
      </button>
    </div>
  );
}
