import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { Router } from "wouter";
import { ApiError } from "./api/errors.ts";
import { App } from "./app.tsx";
import { AuthProvider } from "./auth/auth-context.tsx";
import { ToastProvider } from "./components/toasts.tsx";
import "./styles.css";

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change on retry; a network blip or a 5xx may.
      retry: (failures, error) =>
        failures < 2 && !(error instanceof ApiError && error.status < 500),
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queries}>
      <Router base="/console">
        <AuthProvider>
          <ToastProvider>
            <App />
          </ToastProvider>
        </AuthProvider>
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
