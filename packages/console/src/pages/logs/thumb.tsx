/**
 * A rating's direction as a geometric arrow (logs.css colours it), hidden from screen
 * readers: the button's words say it.
 */
export function Thumb({ up }: { up: boolean }) {
  return (
    <span aria-hidden="true" className={up ? "thumb up" : "thumb down"}>
      {up ? "▲" : "▼"}
    </span>
  );
}
