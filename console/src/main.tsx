import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AgentEditor } from './pages/agent-edit.tsx';
import { Agents } from './pages/agents.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { href, useRoute } from './router.ts';
import { currentKey, onSessionChange } from './session.ts';
import { SCREENS } from './screens.tsx';
import { TopBar } from './top-bar.tsx';
import './style.css';

// The console: a sign-in gate, the top bar with the sections, and one screen per route.

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
      <TopBar section={section} />
      <main id="main" tabIndex={-1}>
        <Screen route={route} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
