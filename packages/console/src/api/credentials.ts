/**
 * The signed-in credential: a project API key (`qry_…`) or the deployment's admin token.
 * Kept for the browser tab (sessionStorage) unless the person asked to be remembered on this
 * device (localStorage). Signing out removes it from both.
 */
export type CredentialKind = "project" | "admin";

export interface Credential {
  kind: CredentialKind;
  token: string;
}

const STORAGE_KEY = "quarry.console.credential";

export function loadCredential(): Credential | null {
  for (const storage of [sessionStorage, localStorage]) {
    const stored = parse(storage.getItem(STORAGE_KEY));
    if (stored) return stored;
  }
  return null;
}

export function saveCredential(credential: Credential, remember: boolean) {
  forgetCredential();
  (remember ? localStorage : sessionStorage).setItem(STORAGE_KEY, JSON.stringify(credential));
}

export function forgetCredential() {
  sessionStorage.removeItem(STORAGE_KEY);
  localStorage.removeItem(STORAGE_KEY);
}

function parse(text: string | null): Credential | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<Credential>;
    if ((value.kind === "project" || value.kind === "admin") && typeof value.token === "string")
      return { kind: value.kind, token: value.token };
  } catch {
    // A damaged entry is as good as none: the person signs in again.
  }
  return null;
}
