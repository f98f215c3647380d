import { useQueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import {
  type Credential,
  forgetCredential,
  loadCredential,
  saveCredential,
} from "../api/credentials.ts";

interface Auth {
  credential: Credential | null;
  signIn(credential: Credential, remember: boolean): void;
  signOut(): void;
}

const AuthContext = createContext<Auth | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const queries = useQueryClient();
  const [credential, setCredential] = useState(loadCredential);
  const signIn = useCallback((next: Credential, remember: boolean) => {
    saveCredential(next, remember);
    setCredential(next);
  }, []);
  // Cached replies belong to the key that fetched them: none survive a sign-out.
  const signOut = useCallback(() => {
    forgetCredential();
    queries.clear();
    setCredential(null);
  }, [queries]);
  const value = useMemo(() => ({ credential, signIn, signOut }), [credential, signIn, signOut]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error("useAuth outside <AuthProvider>");
  return auth;
}
