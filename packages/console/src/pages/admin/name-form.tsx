import { type FormEvent, useId, useState } from "react";
import { ErrorNotice } from "../../components/error-notice.tsx";

/**
 * A one-line "name it and create it" form (a project, a key). Its label is for screen readers
 * only; the placeholder shows the same words. `reset` empties the field once the create worked.
 */
export function NameForm({
  label,
  submitLabel,
  required = false,
  pending,
  error,
  onSubmit,
}: {
  label: string;
  submitLabel: string;
  required?: boolean;
  pending: boolean;
  error: unknown;
  onSubmit: (name: string, reset: () => void) => void;
}) {
  const id = useId();
  const [name, setName] = useState("");
  return (
    <form
      className="row"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        onSubmit(name.trim(), () => setName(""));
      }}
    >
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <input
        id={id}
        required={required}
        placeholder={label}
        value={name}
        onChange={(e) => setName(e.target.value)}
        style={{ width: "14rem" }}
      />
      <button type="submit" className="primary" disabled={pending || (required && !name.trim())}>
        {submitLabel}
      </button>
      {error != null && <ErrorNotice error={error} />}
    </form>
  );
}
