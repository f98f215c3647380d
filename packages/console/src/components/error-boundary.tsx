import { Component, type ReactNode } from "react";
import { ErrorNotice } from "./error-notice.tsx";

/**
 * A render fault shows a message and a way back instead of a blank page (React unmounts
 * the whole tree on an uncaught render error). Keyed by route, so navigating away resets it.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="stack">
        <h1>Something went wrong on this page</h1>
        <ErrorNotice error={this.state.error} onRetry={() => this.setState({ error: null })} />
      </div>
    );
  }
}
