import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ConfirmDialog } from "./confirm-dialog.tsx";
import { ErrorNotice } from "./error-notice.tsx";
import { useToast } from "./toasts.tsx";

/**
 * A destructive API call (delete, revoke) behind a ConfirmDialog: on success a toast and the
 * affected queries refetched; a refusal is shown in place, beside the button.
 */
export function ConfirmedAction({
  label,
  pendingLabel = label,
  ariaLabel,
  title,
  description,
  confirmLabel,
  action,
  doneMessage,
  invalidates,
}: {
  /** the trigger button's text */
  label: string;
  pendingLabel?: string;
  /** the trigger's accessible name: which item it acts on */
  ariaLabel: string;
  title: string;
  description: ReactNode;
  confirmLabel?: string;
  action: () => Promise<unknown>;
  /** the toast on success */
  doneMessage: string;
  invalidates: QueryKey;
}) {
  const queries = useQueryClient();
  const toast = useToast();
  const run = useMutation({
    mutationFn: action,
    onSuccess: () => {
      toast(doneMessage);
      queries.invalidateQueries({ queryKey: invalidates });
    },
  });
  return (
    <>
      <ConfirmDialog
        trigger={
          <button type="button" disabled={run.isPending} aria-label={ariaLabel}>
            {run.isPending ? pendingLabel : label}
          </button>
        }
        title={title}
        description={<p>{description}</p>}
        confirmLabel={confirmLabel}
        onConfirm={() => run.mutate()}
      />
      {run.error && <ErrorNotice error={run.error} />}
    </>
  );
}
