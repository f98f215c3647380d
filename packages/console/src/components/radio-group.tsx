import type { ReactNode } from "react";

/** One choice of a few, as radio buttons in a fieldset whose legend names the choice. */
export function RadioGroup<Value extends string>({
  legend,
  name,
  value,
  options,
  onChange,
  className = "segmented",
  labelClassName,
}: {
  legend: string;
  /** the radios' shared name (unique on the page) */
  name: string;
  value: Value;
  options: readonly { value: Value; label: ReactNode }[];
  onChange: (value: Value) => void;
  className?: string;
  labelClassName?: string;
}) {
  return (
    <fieldset className={className}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className={labelClassName}>
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}
