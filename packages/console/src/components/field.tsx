import { type ComponentProps, type ReactNode, useId } from "react";

/**
 * A labelled form control: `id` is the control's (the caller renders it as `children`, so
 * any input, select or textarea with its own attributes fits), the label points at it.
 */
export function Field({
  id,
  label,
  className,
  children,
}: {
  id: string;
  label: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div className={className ? `field ${className}` : "field"}>
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
}

/** A labelled input whose id nothing else needs; `onChange` gets its text. */
export function InputField({
  label,
  fieldClassName,
  onChange,
  ...input
}: {
  label: ReactNode;
  fieldClassName?: string;
  onChange: (text: string) => void;
} & Omit<ComponentProps<"input">, "id" | "onChange">) {
  const id = useId();
  return (
    <Field id={id} label={label} className={fieldClassName}>
      <input id={id} {...input} onChange={(event) => onChange(event.target.value)} />
    </Field>
  );
}

/** A labelled select whose id nothing else needs; `children` are its options. */
export function SelectField({
  label,
  fieldClassName,
  onChange,
  children,
  ...select
}: {
  label: ReactNode;
  fieldClassName?: string;
  onChange: (value: string) => void;
  children: ReactNode;
} & Omit<ComponentProps<"select">, "id" | "onChange" | "children">) {
  const id = useId();
  return (
    <Field id={id} label={label} className={fieldClassName}>
      <select id={id} {...select} onChange={(event) => onChange(event.target.value)}>
        {children}
      </select>
    </Field>
  );
}
