import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AgentEditor } from './pages/agent-edit.tsx';
import { Agents } from './pages/agents.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { href, useRoute } from './router.ts';
import { currentKey, onSessionChange, signOut } from './session.ts';
import { SCREENS } from './screens.tsx';
import './style.css';

// The console: a sign-in gate, a navigation bar and one screen per route.

const NAV: [string, string][] = [
  ['agents', 'Agents'],
  ['calls', 'Calls'],
  ['campaigns', 'Campaigns'],
  ['numbers', 'Numbers'],
  ['knowledge', 'Knowledge'],
  ['actions', 'Actions'],
  ['simulations', 'Simulations'],
  ['logs', 'Webhook logs'],
  ['analytics', 'Analytics'],
  ['keys', 'API keys'],
];

function Screen(props: { route: string[] }) {
  const [section = 'agents', id, sub] = props.route;
  if (section === 'agents' && id === 'new') return <AgentEditor />;
  if (section === 'agents' && id) return <AgentEditor modelId={id} tab={sub} />;
  if (section === 'agents') return <Agents />;
  const screen = SCREENS[section];
  if (screen) return screen(id, sub);
  return (
    <section class="page">
      <h1>Not found</h1>
      <p>
        There is no page at this address. <a href={href('agents')}>Go to the agents.</a>
      </p>
    </section>
  );
}

function App() {
  const [key, setKey] = useState(currentKey());
  const route = useRoute();
  useEffect(() => onSessionChange(() => setKey(currentKey())), []);
  if (!key) return <SignIn />;
  const section = route[0] ?? 'agents';
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Parley</span>
        <nav aria-label="Sections">
          {NAV.map(([path, label]) => (
            <a href={href(path)} aria-current={section === path ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button type="button" class="link" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Screen route={route} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
