import { useEffect, useRef, useState } from 'preact/hooks';
import { describe, parley, unwrap } from '../session.ts';
import { Page } from '../ui.tsx';

// Text chat with the agent (spec "Chats"): the page opens a chat under an id of its own (a random
// UUID), shows the greeting, then each message and the agent's answer; "New chat" starts over.

interface Message {
  from: 'agent' | 'you';
  text: string;
}

/** A random UUID (v4): crypto.randomUUID where the page is secure, else from getRandomValues. */
export function newChatId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function Chat(props: { modelId: string }) {
  const [chatId, setChatId] = useState<string | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [draft, setDraft] = useState('');
  const [opening, setOpening] = useState(false);
  const [sending, setSending] = useState(false);
  const [ended, setEnded] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  /** The chat being opened: an answer for an older one is not shown. */
  const current = useRef<string | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);

  const open = async () => {
    const id = newChatId();
    current.current = id;
    setChatId(null);
    setMessages([]);
    setEnded(false);
    setError(undefined);
    setOpening(true);
    try {
      const chat = await unwrap(
        parley().api.POST('/v2/chat/{chat_id}', {
          params: { path: { chat_id: id } },
          body: { model_id: props.modelId },
        }),
      );
      if (current.current !== id) return;
      const history: Message[] = chat.conversation_history.map((m) => ({
        from: m.agent_id === 'user' ? 'you' : 'agent',
        text: m.message,
      }));
      const greeting = chat.initial_message?.agent_message;
      setMessages(history.length > 0 ? history : greeting ? [{ from: 'agent', text: greeting }] : []);
      setEnded(chat.chat_status !== 'ongoing');
      setChatId(id);
    } catch (err) {
      if (current.current === id) setError(err);
    } finally {
      if (current.current === id) setOpening(false);
    }
  };

  useEffect(() => {
    void open();
    return () => {
      current.current = null;
    };
  }, [props.modelId]);

  const send = async (event: Event) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || !chatId || sending) return;
    setError(undefined);
    setSending(true);
    setDraft('');
    setMessages((ms) => [...ms, { from: 'you', text }]);
    try {
      const answer = await unwrap(
        parley().api.POST('/v2/chat/{chat_id}/messages', {
          params: { path: { chat_id: chatId } },
          body: { message: text },
        }),
      );
      if (current.current !== chatId) return;
      if (answer.agent_message) setMessages((ms) => [...ms, { from: 'agent', text: answer.agent_message }]);
      if (answer.current_state === 'completed') setEnded(true);
    } catch (err) {
      if (current.current !== chatId) return;
      setError(err);
      // Not sent: back in the box to try again.
      setMessages((ms) => ms.slice(0, -1));
      setDraft(text);
    } finally {
      if (current.current === chatId) {
        setSending(false);
        box.current?.focus();
      }
    }
  };

  return (
    <Page
      title="Chat with the agent"
      actions={
        <button type="button" class="secondary" onClick={() => void open()} disabled={opening}>
          New chat
        </button>
      }
    >
      {error !== undefined ? (
        <p class="error" role="alert">
          {describe(error)}
        </p>
      ) : null}
      {opening ? <p aria-busy="true">Opening a chat…</p> : null}
      {chatId ? (
        <>
          <ol class="transcript chat-log" aria-live="polite" aria-label="Chat">
            {messages.map((m, i) => (
              <li key={i} class={m.from}>
                <span class="who">{m.from === 'agent' ? 'Agent' : 'You'}</span>
                {m.text}
              </li>
            ))}
            {sending ? (
              <li class="agent" aria-busy="true">
                <span class="who">Agent</span>
                <span class="hint">…</span>
              </li>
            ) : null}
          </ol>
          {ended ? (
            <p class="notice">The chat ended. Start a new chat to talk again.</p>
          ) : (
            <form onSubmit={send} class="chat-form">
              <div class="field">
                <label for="chat-message">Message</label>
                <textarea
                  id="chat-message"
                  ref={box}
                  rows={2}
                  value={draft}
                  onInput={(e) => setDraft(e.currentTarget.value)}
                  onKeyDown={(e) => {
                    // Enter sends; Shift+Enter is a new line.
                    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) void send(e);
                  }}
                />
              </div>
              <button type="submit" disabled={sending || draft.trim() === ''}>
                {sending ? 'Sending…' : 'Send'}
              </button>
            </form>
          )}
          <p class="hint">Chat {chatId}</p>
        </>
      ) : null}
    </Page>
  );
}
