import { useEffect, useRef, useState } from 'preact/hooks';
import { href } from './router.ts';
import { signOut } from './session.ts';

// The bar at the top of every screen: the brand, the sections and "Sign out". On a phone the
// ten sections would fill a fifth of the screen, so there they sit behind a "Menu" button
// (a disclosure: the stylesheet shows the button and hides the closed list below 40rem). The
// menu closes when a section is chosen and on Escape, which gives the focus back to the button.

const SECTIONS: [string, string][] = [
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

export function TopBar(props: { section: string }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);

  // Escape, from the button or a link, closes the open menu and gives the focus back to the
  // button. A handler on the bar, not a listener added by an effect: an effect runs after the
  // paint, and an Escape pressed before it would be missed.
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !open) return;
    setOpen(false);
    button.current?.focus();
  };

  // A route changed another way (back, a link in the page) closes it too.
  useEffect(() => setOpen(false), [props.section]);

  return (
    <header class="top" onKeyDown={onKeyDown}>
      <span class="brand">Parley</span>
      <button
        ref={button}
        type="button"
        class="menu-button secondary"
        aria-expanded={open ? 'true' : 'false'}
        aria-controls="sections"
        onClick={() => setOpen((o) => !o)}
      >
        Menu
      </button>
      <nav id="sections" class={open ? 'open' : undefined} aria-label="Sections">
        {SECTIONS.map(([path, label]) => (
          <a
            href={href(path)}
            aria-current={props.section === path ? 'page' : undefined}
            onClick={() => setOpen(false)}
          >
            {label}
          </a>
        ))}
      </nav>
      <button type="button" class="link" onClick={() => signOut()}>
        Sign out
      </button>
    </header>
  );
}
