import { type FormEvent, useId, useState } from "react";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { Field, InputField } from "../../components/field.tsx";
import { ListFieldset, RemoveButton } from "../../components/list-fieldset.tsx";
import { RadioGroup } from "../../components/radio-group.tsx";
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

const STYLES = [
  { value: "completion", label: "Completion (one prompt)" },
  { value: "chat", label: "Chat (messages)" },
] as const;

/** The model's sampling settings; each is optional. */
const SAMPLING = [
  { key: "temperature", label: "Temperature", min: 0, max: 2, step: 0.1 },
  { key: "max_tokens", label: "Max tokens", min: 1, step: 1 },
] as const;
type SamplingKey = (typeof SAMPLING)[number]["key"];

function numberOrNull(text: string) {
  return text === "" ? null : Number(text);
}

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
  // As typed: "" is "the provider's default" (sent as null).
  const [sampling, setSampling] = useState<Record<SamplingKey, string>>({
    temperature: endpoint?.temperature?.toString() ?? "",
    max_tokens: endpoint?.max_tokens?.toString() ?? "",
  });
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
      temperature: numberOrNull(sampling.temperature),
      max_tokens: numberOrNull(sampling.max_tokens),
      search,
    };
    save.mutate(body, { onSuccess: onSaved });
  };

  return (
    <form className="stack endpoint-form" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{endpoint ? "Configuration" : "New endpoint"}</h2>
      <InputField label="Name" value={name} onChange={setName} required maxLength={200} />
      <Field id={`${id}-model`} label="Model">
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
      </Field>
      <RadioGroup
        legend="Style"
        name={`${id}-style`}
        value={style}
        options={STYLES}
        onChange={setStyle}
        className="style-choice"
        labelClassName="inline"
      />
      {style === "completion" ? (
        <Field id={`${id}-prompt`} label="Prompt template">
          <textarea
            id={`${id}-prompt`}
            value={prompt}
            onChange={(e) => setPrompt(e.target.value)}
            rows={6}
            className="mono"
            aria-describedby={`${id}-variables`}
          />
        </Field>
      ) : (
        <MessagesEditor
          messages={messages}
          onChange={setMessages}
          describedBy={`${id}-variables`}
        />
      )}
      <VariablesPanel id={`${id}-variables`} variables={variables} />
      <div className="row wrap">
        {SAMPLING.map(({ key, label, ...limits }) => (
          <Field key={key} id={`${id}-${key}`} label={label}>
            <input
              id={`${id}-${key}`}
              type="number"
              {...limits}
              value={sampling[key]}
              placeholder="provider default"
              onChange={(e) => setSampling({ ...sampling, [key]: e.target.value })}
            />
          </Field>
        ))}
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
    <ListFieldset
      legend="Message templates"
      className="stack messages"
      addLabel="Add message"
      onAdd={() => onChange([...messages, { role: "user", content: "" }])}
      addDisabled={messages.length >= 100}
    >
      {messages.map((message, index) => (
        // Messages have no identity but their place in the list.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <div key={index} className="message-row">
          <label className="sr-only" htmlFor={`${id}-role-${index}`}>
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
          <label className="sr-only" htmlFor={`${id}-content-${index}`}>
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
          <RemoveButton
            what={`message ${index + 1}`}
            onRemove={() => onChange(messages.filter((_, i) => i !== index))}
            disabled={messages.length === 1}
          />
        </div>
      ))}
    </ListFieldset>
  );
}
