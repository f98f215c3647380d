import {
  type ChatTurn,
  type CompletionCall,
  type CompletionTimeouts,
  type CompletionUsage,
  createLanguageModel,
  type LanguageModel,
  parseModelId,
} from "@quarry/providers";
import type { EndpointRecord } from "../endpoints/endpoint-view.ts";
import { requireEndpoint } from "../endpoints/require-endpoint.ts";
import type { ProjectContext } from "../shared/context.ts";
import { BadRequestError, type ServiceError, UpstreamError } from "../shared/errors.ts";
import { newUuid } from "../shared/ids.ts";
import { upstreamFailure } from "../shared/upstream-failure.ts";
import { builtinValues } from "../templates/builtin-variables.ts";
import { checkRequestValues } from "../templates/request-variables.ts";
import type { CompletionInput } from "./completion-input.ts";
import { LOG_STATUS, writeCompletionLog } from "./completion-log.ts";
import { type CompletionCosts, completionCosts } from "./completion-usage.ts";
import { type ModelInput, renderModelInput } from "./render-model-input.ts";
import {
  type CompletionSearchResult,
  runSearchBlocks,
  type SearchContext,
  withImagePaths,
} from "./search-context.ts";

/**
 * How the reply speaks: the text completion of E4, or OpenAI's chat format on
 * `/chat/completions` (docs/api.md#e4-completions).
 */
export type ReplyFormat = "text" | "chat";

export interface CompletionOptions {
  /** the API key that called: the log's user when the request names none */
  callerId: string;
  /** default: `chat` for chat endpoints, `text` for completion endpoints */
  format?: ReplyFormat;
  timeouts?: Partial<CompletionTimeouts>;
  /** retries of a failed model call before its first token (default 2) */
  retries?: number;
}

/** How a completion ended, for its log. */
export interface Outcome {
  status: number;
  error: string | null;
  text: string;
  usage: CompletionUsage | undefined;
  /** the model as the provider named it in its reply */
  modelId: string | undefined;
}

/**
 * One completion from request to log: the endpoint's current deployment, the caller's input
 * checked against it, search, rendering, the model, and exactly one log row at the end,
 * whatever the end (`finish` ignores all but the first call).
 */
export class CompletionRun {
  readonly logId = newUuid();
  readonly createdAt = new Date();
  readonly completionId: string;
  readonly format: ReplyFormat;
  private readonly started = Date.now();
  private search: SearchContext = { filled: {}, results: [] };
  private searchResults: Promise<CompletionSearchResult[]> = Promise.resolve([]);
  private rendered: ModelInput;
  private logged: Promise<CompletionCosts> | undefined;
  private markLogged: () => void = () => {};
  /** settles once the log row is written (or its write failed); never rejects */
  readonly whenLogged = new Promise<void>((resolve) => {
    this.markLogged = resolve;
  });

  private constructor(
    private readonly ctx: ProjectContext,
    readonly endpoint: EndpointRecord,
    readonly input: CompletionInput,
    /** the caller's values and the built-in ones (`last_user_message`) */
    private readonly values: Record<string, string>,
    private readonly options: CompletionOptions,
  ) {
    this.format = options.format ?? (endpoint.type === "chat" ? "chat" : "text");
    this.completionId = `${this.format === "chat" ? "chatcmpl" : "cmpl"}-${this.logId.replaceAll("-", "")}`;
    this.rendered = renderModelInput(endpoint, values, input);
  }

  /**
   * Loads the endpoint and checks the request's values (the caller's, and the built-in
   * `last_user_message`) against its template and search queries: every variable not filled
   * by a search block needs a value. A 400 names all that are missing, and beside them the
   * `values` keys no variable uses. Nothing is logged for a request rejected here.
   */
  static async start(
    ctx: ProjectContext,
    endpointId: string,
    input: CompletionInput,
    options: CompletionOptions,
  ): Promise<CompletionRun> {
    const endpoint = await requireEndpoint(ctx, endpointId);
    // The built-ins cannot collide with the caller's: `CompletionInput` refuses them.
    const values = { ...input.values, ...builtinValues(endpoint.type, input) };
    const problem = checkRequestValues(endpoint, values, Object.keys(input.rawValues ?? {}));
    if (problem) throw new BadRequestError(problem.message, problem.field);
    return new CompletionRun(ctx, endpoint, input, values, options);
  }

  get created(): number {
    return Math.floor(this.createdAt.getTime() / 1000);
  }

  get usesSearch(): boolean {
    return this.endpoint.search.length > 0;
  }

  /** The upstream model's name as configured (`gpt-4o-mini` for `openai/gpt-4o-mini`). */
  get upstreamModel(): string {
    return modelName(this.endpoint.model);
  }

  get messages(): ChatTurn[] {
    return this.rendered.messages;
  }

  /** Runs the search blocks and renders their results into the template. */
  async retrieve(): Promise<void> {
    if (!this.usesSearch) return;
    try {
      this.search = await runSearchBlocks(this.ctx, this.endpoint.search, this.values);
    } catch (error) {
      // A provider failure while searching (the embedder) fails the completion: logged.
      if (error instanceof UpstreamError) await this.fail(error);
      throw error;
    }
    this.rendered = renderModelInput(
      this.endpoint,
      { ...this.values, ...this.search.filled },
      this.input,
    );
    // image_paths come from the rows table; fetched while the model answers.
    this.searchResults = withImagePaths(this.ctx, this.search.results);
    this.searchResults.catch(() => {});
  }

  /** The search results with their image paths (waits for the lookup `retrieve` started). */
  results(): Promise<CompletionSearchResult[]> {
    return this.searchResults;
  }

  /** The model and the call, or an `upstream_error` (logged) when it cannot be created. */
  async model(): Promise<{ model: LanguageModel; call: CompletionCall }> {
    let model: LanguageModel;
    try {
      model = createLanguageModel(this.endpoint.model, this.ctx.providers ?? {});
    } catch (error) {
      throw await this.fail(error);
    }
    const call: CompletionCall = {
      messages: this.rendered.messages,
      ...(this.endpoint.temperature !== null ? { temperature: this.endpoint.temperature } : {}),
      ...(this.endpoint.maxTokens !== null ? { maxTokens: this.endpoint.maxTokens } : {}),
      ...(this.input.user !== undefined ? { user: this.input.user } : {}),
      ...(this.options.timeouts ? { timeouts: this.options.timeouts } : {}),
      ...(this.options.retries !== undefined ? { retries: this.options.retries } : {}),
    };
    return { model, call };
  }

  /** Logs the completion as failed and returns the error to throw (an `upstream_error`). */
  async fail(error: unknown, partialText = ""): Promise<ServiceError> {
    const failure = upstreamFailure(error, `the model '${this.endpoint.model}'`);
    await this.finish({
      status: failure.code === "upstream_error" ? LOG_STATUS.upstreamError : LOG_STATUS.internal,
      error: failure.message,
      text: partialText,
      usage: undefined,
      modelId: undefined,
    });
    return failure;
  }

  /** Writes the log row once; later calls return the first call's costs. */
  finish(outcome: Outcome): Promise<CompletionCosts> {
    if (!this.logged) {
      this.logged = this.writeLog(outcome);
      this.logged.then(this.markLogged, this.markLogged);
    }
    return this.logged;
  }

  private async writeLog(outcome: Outcome): Promise<CompletionCosts> {
    const costs = completionCosts(
      this.endpoint.model,
      this.rendered.messages,
      outcome.text,
      outcome.usage,
    );
    const searchResults = await this.searchResults.catch(() => this.search.results);
    await writeCompletionLog(this.ctx, {
      id: this.logId,
      endpointId: this.endpoint.id,
      deploymentId: this.endpoint.deploymentId,
      userId: this.input.user ?? this.options.callerId,
      model: outcome.modelId ?? this.upstreamModel,
      serviceModelName: this.endpoint.model,
      prompt: this.rendered.prompt,
      completion: outcome.text,
      values: this.input.rawValues,
      searchResults,
      status: outcome.status,
      error: outcome.error,
      costs,
      temperature: this.endpoint.temperature,
      latencyMs: Date.now() - this.started,
      createdAt: this.createdAt,
    });
    return costs;
  }
}

function modelName(modelId: string): string {
  try {
    return parseModelId(modelId).model;
  } catch {
    return modelId;
  }
}
