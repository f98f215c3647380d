import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useEffect, useId, useState } from "react";
import { API_ORIGIN } from "../api/client.ts";
import type { Credential, CredentialKind } from "../api/credentials.ts";
import { apiErrorOf } from "../api/errors.ts";
import { ErrorNotice } from "../components/error-notice.tsx";
import { Field } from "../components/field.tsx";
import { RadioGroup } from "../components/radio-group.tsx";
import { useAuth } from "./auth-context.tsx";

/**
 * Checks the credential against the API before keeping it: a project key must list datasets,
 * the admin token must list projects. A wrong key is shown here, not on the next page.
 */
async function verify({ kind, token }: Credential) {
  const path = kind === "project" ? "/api/datasets?page_size=1" : "/admin/projects?page_size=1";
  const reply = await fetch(new URL(path, API_ORIGIN), {
    headers: { Authorization: `Bearer ${token}` },
  });
  // An older API without GET /admin/projects answers 404/405 to a valid token; only 401 is no.
  if (reply.ok || (kind === "admin" && (reply.status === 404 || reply.status === 405))) return;
  const body = await reply.json().catch(() => null);
  throw apiErrorOf(reply.status, body, reply.headers.get("x-request-id"));
}

const KINDS: { value: CredentialKind; label: string }[] = [
  { value: "project", label: "Project key" },
  { value: "admin", label: "Admin token" },
];

export const INTERACTIVE_MARK = "quarry:sign-in-interactive";

export function SignIn() {
  const { signIn } = useAuth();
  const [kind, setKind] = useState<CredentialKind>("project");
  const [token, setToken] = useState("");
  const [remember, setRemember] = useState(false);
  const tokenId = useId();
  // When the form can be used: the console's time to interactive (workers/api/scripts/
  // console-measure.mts reads it; issue 16 asks for ≤ 1 s on the local stack).
  useEffect(() => {
    if (performance.getEntriesByName(INTERACTIVE_MARK).length === 0)
      performance.mark(INTERACTIVE_MARK);
  }, []);
  const check = useMutation({
    mutationFn: verify,
    onSuccess: (_, credential) => signIn(credential, remember),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    check.mutate({ kind, token: token.trim() });
  }

  return (
    <main className="sign-in">
      <form className="card stack" onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Quarry</h1>
        <RadioGroup
          legend="Sign in with"
          name="kind"
          value={kind}
          options={KINDS}
          onChange={setKind}
        />
        <Field id={tokenId} label={kind === "project" ? "API key" : "Token"}>
          <input
            id={tokenId}
            type="password"
            autoComplete="off"
            spellCheck={false}
            required
            placeholder={kind === "project" ? "qry_…" : ""}
            value={token}
            onChange={(event) => setToken(event.target.value)}
          />
        </Field>
        <label className="check">
          <input
            type="checkbox"
            checked={remember}
            onChange={(event) => setRemember(event.target.checked)}
          />
          Remember on this device
        </label>
        <p className="hint">
          {remember
            ? "Kept in this browser until you sign out."
            : "Kept for this tab only; closing it signs you out."}{" "}
          The key is sent to this API only.
        </p>
        {check.error && <ErrorNotice error={check.error} />}
        <button type="submit" className="primary" disabled={check.isPending || !token.trim()}>
          {check.isPending ? "Checking…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
