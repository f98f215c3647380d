import { type FormEvent, useId, useState } from "react";
import { ErrorNotice } from "../../components/error-notice.tsx";
import type { CreateEndpoint, Endpoint, SearchBlock } from "./endpoint-api.ts";
import { useSaveEndpoint } from "./endpoint-api.ts";
import { SearchBlocksEditor } from "./search-blocks-editor.tsx";
import { classifyVariables } from "./template-variables.ts";

/**
 * Create or edit an endpoint (docs/api.md#endpoints): model, a completion prompt or chat
 * messages (templates over `{{variables}}`), temperature, max tokens and search blocks. The
 * variables are shown as the template is typed; every save deploys anew, and the API's 400
 * (which names the field) is shown above the save button.
 */
type Message = { role: "system" | "user" | "assistant"; content: string };

export const MODEL_SUGGESTIONS = [
  "local/echo",
  "openai/gpt-4o-mini",
  "openai/gpt-4.1-mini",
  "workers-ai/@cf/meta/llama-3.1-8b-instruct",
];

export function EndpointForm({
  endpoint,
  onSaved,
}: {
  endpoint?: Endpoint;
  onSaved: (saved: Endpoint) => void;
}) {
  const id = useId();
  const save = useSaveEndpoint(endpoint?.id);
  const [name, setName] = useState(endpoint?.name ?? "");
  const [model, setModel] = useState(endpoint?.model ?? "local/echo");
  const [style, setStyle] = useState<"completion" | "chat">(endpoint?.type ?? "completion");
  const [prompt, setPrompt] = useState(endpoint?.prompt ?? "");
  const [messages, setMessages] = useState<Message[]>(
    endpoint?.messages ?? [{ role: "system", content: "" }],
  );
  const [temperature, setTemperature] = useState(endpoint?.temperature?.toString() ?? "");
  const [maxTokens, setMaxTokens] = useState(endpoint?.max_tokens?.toString() ?? "");
  const [search, setSearch] = useState<SearchBlock[]>(endpoint?.search ?? []);

  const templates = style === "completion" ? [prompt] : messages.map((m) => m.content);
  const variables = classifyVariables(
    [...templates, ...search.map((block) => block.query)],
    search.map((block) => block.variable),
  );

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: CreateEndpoint = {
      name: name.trim(),
      model: model.trim(),
      ...(style === "completion" ? { prompt } : { messages }),
      temperature: temperature === "" ? null : Number(temperature),
      max_tokens: maxTokens === "" ? null : Number(maxTokens),
      search,
    };
    save.mutate(body, { onSuccess: onSaved });
  };

  return (
    <form className="stack endpoint-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{endpoint ? "Configuration" : "New endpoint"}</h2>
      <div className="field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={200}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-model`}>Model</label>
        <input
          id={`${id}-model`}
          value={model}
          onChange={(e) => setModel(e.target.value)}
          list={`${id}-models`}
          required
          aria-describedby={`${id}-model-help`}
        />
        <datalist id={`${id}-models`}>
          {MODEL_SUGGESTIONS.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <p id={`${id}-model-help`} className="muted small">
          <code>provider/model-id</code>: <code>openai/…</code>, <code>workers-ai/…</code>, or{" "}
          <code>local/echo</code> (offline: answers with the rendered prompt).
        </p>
      </div>
      <fieldset className="style-choice">
        <legend>Style</legend>
        <label className="inline">
          <input
            type="radio"
            name={`${id}-style`}
            checked={style === "completion"}
            onChange={() => setStyle("completion")}
          />
          Completion (one prompt)
        </label>
        <label className="inline">
          <input
            type="radio"
            name={`${id}-style`}
            checked={style === "chat"}
            onChange={() => setStyle("chat")}
          />
          Chat (messages)
        </label>
      </fieldset>
      {style === "completion" ? (
        <div className="field">
          <label htmlFor={`${id}-prompt`}>Prompt template</label>
          <textarea
            id={`${id}-prompt`}
            value={prompt}
            onChange={(e) => setPrompt(e.target.value)}
            rows={6}
            className="mono"
            aria-describedby={`${id}-variables`}
          />
        </div>
      ) : (
        <MessagesEditor
          messages={messages}
          onChange={setMessages}
          describedBy={`${id}-variables`}
        />
      )}
      <VariablesPanel id={`${id}-variables`} variables={variables} />
      <div className="row wrap">
        <div className="field">
          <label htmlFor={`${id}-temperature`}>Temperature</label>
          <input
            id={`${id}-temperature`}
            type="number"
            min={0}
            max={2}
            step={0.1}
            value={temperature}
            placeholder="provider default"
            onChange={(e) => setTemperature(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-max-tokens`}>Max tokens</label>
          <input
            id={`${id}-max-tokens`}
            type="number"
            min={1}
            step={1}
            value={maxTokens}
            placeholder="provider default"
            onChange={(e) => setMaxTokens(e.target.value)}
          />
        </div>
      </div>
      <SearchBlocksEditor blocks={search} onChange={setSearch} />
      {save.error && <ErrorNotice error={save.error} />}
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending
            ? "Deploying…"
            : endpoint
              ? "Save as a new deployment"
              : "Create endpoint"}
        </button>
        {endpoint && (
          <span className="muted small">Deployment {endpoint.deployment_id} is live.</span>
        )}
      </div>
    </form>
  );
}

function VariablesPanel({
  id,
  variables,
}: {
  id: string;
  variables: ReturnType<typeof classifyVariables>;
}) {
  const none = variables.values.length + variables.search.length + variables.builtin.length === 0;
  return (
    <div id={id} className="variables" aria-live="polite">
      <h3 className="small">Variables</h3>
      {none ? (
        <p className="muted small">
          None yet: write <code>{"{{name}}"}</code> in the template to add one.
        </p>
      ) : (
        <ul className="chips" aria-label="Template variables">
          {variables.values.map((name) => (
            <li key={name} className="chip" title="filled by the caller's values">
              {name} <span className="muted">· values</span>
            </li>
          ))}
          {variables.search.map((name) => (
            <li key={name} className="chip search" title="filled by a search block">
              {name} <span className="muted">· search</span>
            </li>
          ))}
          {variables.builtin.map((name) => (
            <li
              key={name}
              className="chip builtin"
              title="filled from the request's last user turn"
            >
              {name} <span className="muted">· built in</span>
            </li>
          ))}
        </ul>
      )}
      {variables.unusedSearch.length > 0 && (
        <p className="notice warning small">
          Search {variables.unusedSearch.length === 1 ? "variable" : "variables"}{" "}
          {variables.unusedSearch.map((v) => `{{${v}}}`).join(", ")} not in the template: the API
          will refuse to deploy it.
        </p>
      )}
    </div>
  );
}

function MessagesEditor({
  messages,
  onChange,
  describedBy,
}: {
  messages: Message[];
  onChange: (messages: Message[]) => void;
  describedBy: string;
}) {
  const id = useId();
  const update = (index: number, patch: Partial<Message>) =>
    onChange(messages.map((m, i) => (i === index ? { ...m, ...patch } : m)));
  return (
    <fieldset className="stack messages">
      <legend>Message templates</legend>
      {messages.map((message, index) => (
        // Messages have no identity but their place in the list.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <div key={index} className="message-row">
          <label className="visually-hidden" htmlFor={`${id}-role-${index}`}>
            Role of message {index + 1}
          </label>
          <select
            id={`${id}-role-${index}`}
            value={message.role}
            onChange={(e) => update(index, { role: e.target.value as Message["role"] })}
          >
            <option value="system">system</option>
            <option value="user">user</option>
            <option value="assistant">assistant</option>
          </select>
          <label className="visually-hidden" htmlFor={`${id}-content-${index}`}>
            Content of message {index + 1}
          </label>
          <textarea
            id={`${id}-content-${index}`}
            value={message.content}
            rows={3}
            className="mono"
            aria-describedby={describedBy}
            onChange={(e) => update(index, { content: e.target.value })}
          />
          <button
            type="button"
            onClick={() => onChange(messages.filter((_, i) => i !== index))}
            disabled={messages.length === 1}
            aria-label={`Remove message ${index + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <div>
        <button
          type="button"
          onClick={() => onChange([...messages, { role: "user", content: "" }])}
          disabled={messages.length >= 100}
        >
          Add message
        </button>
      </div>
    </fieldset>
  );
}
