import { Toast } from "radix-ui";
import { createContext, type ReactNode, useCallback, useContext, useState } from "react";

/**
 * Short confirmations ("Row saved", "Copied") with Radix Toast: announced to screen readers,
 * dismissable with the keyboard (F8 focuses the viewport). Errors are not toasts: they stay
 * where they happened (ErrorNotice).
 */
interface Note {
  id: number;
  text: string;
}

const ToastContext = createContext<(text: string) => void>(() => {});

export function ToastProvider({ children }: { children: ReactNode }) {
  const [notes, setNotes] = useState<Note[]>([]);
  const toast = useCallback((text: string) => {
    setNotes((current) => [...current.slice(-2), { id: Date.now() + Math.random(), text }]);
  }, []);
  return (
    <ToastContext.Provider value={toast}>
      <Toast.Provider swipeDirection="right" duration={3000}>
        {children}
        {notes.map((note) => (
          <Toast.Root
            key={note.id}
            className="toast"
            onOpenChange={(open) => {
              if (!open) setNotes((current) => current.filter((n) => n.id !== note.id));
            }}
          >
            <Toast.Description>{note.text}</Toast.Description>
          </Toast.Root>
        ))}
        <Toast.Viewport className="toast-viewport" />
      </Toast.Provider>
    </ToastContext.Provider>
  );
}

/** `const toast = useToast(); toast("Saved")` */
export function useToast() {
  return useContext(ToastContext);
}
