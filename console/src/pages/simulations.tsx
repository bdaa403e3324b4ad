import { useMemo, useState } from 'preact/hooks';
import { ParleyError, type components } from '../../../sdk/index.ts';
import { AgentField, loadAgents } from '../agent-choice.tsx';
import {
  fieldErrors,
  FormButtons,
  InputField,
  TextAreaField,
  useForm,
  useSending,
  type Problems,
} from '../form.tsx';
import { usePolled } from '../polled.ts';
import { go, href } from '../router.ts';
import { describe, fieldError, parley, unwrap } from '../session.ts';
import { BUTTONS_COLUMN, byPageNumber, ListTable, optional, Table, usePagedList } from '../table.tsx';
import {
  Counter,
  DeleteButton,
  ErrorNote,
  Loading,
  LoadingPage,
  NotFound,
  Notice,
  Page,
  plural,
  useChange,
  useLoad,
  when,
  type Loaded,
} from '../ui.tsx';

// Simulations: test cases (a simulated caller's prompt and what the call must achieve), suites
// (cases run together on one agent), running a suite, and a run's page: each simulation's status,
// verdict per criterion and transcript, read again every 2 s until the run is over.
//
// Routes: `#/simulations` (suites and cases), `#/simulations/<suite_id>` (one suite, run it, its
// runs), `#/simulations/<suite_id>/<session_id>` (one run).

type Agent = components['schemas']['Agent'];

// The shapes as the SDK returns them (openapi-fetch drops the always-null fields of the schema).
function getSuite(suiteId: string) {
  return unwrap(
    parley().api.GET('/v2/simulation_suites/{suite_id}', { params: { path: { suite_id: suiteId } } }),
  );
}
function getSession(sessionId: string) {
  return unwrap(
    parley().api.GET('/v2/simulations/sessions/{session_id}', {
      params: { path: { session_id: sessionId } },
    }),
  );
}
function listCases(page: number, size: number) {
  return unwrap(
    parley().api.GET('/v2/simulation_cases', { params: { query: { page_number: page, page_size: size } } }),
  );
}
type Suite = Awaited<ReturnType<typeof getSuite>>;
type Case = Suite['cases'][number];
type Session = Awaited<ReturnType<typeof getSession>>;
type Simulation = Session['simulations'][number];
type CaseList = Awaited<ReturnType<typeof listCases>>;
type RunMode = 'recorded' | 'live';

const SUITE_PAGE = 20;
const CASE_PAGE = 20;
const SESSION_LIMIT = 10;
const POLL_MS = 2_000;
const MAX_CRITERIA = 50;
const NAME_MAX = 200;

/** A suite or session that is not there: 404, or the 400 of an id that is not a UUID. */
function isMissing(err: unknown): boolean {
  return (
    err instanceof ParleyError &&
    (err.status === 404 || (err.status === 400 && /uuid|not found/i.test(err.description)))
  );
}

/** Asked before a test case is deleted, from the list or from its suite's page. */
const deleteCaseQuestion = (c: Case) => `Delete the test case "${c.name}"?`;

function deleteCase(c: Case) {
  return unwrap(
    parley().api.DELETE('/v2/simulation_cases/{simulation_case_id}', {
      params: { path: { simulation_case_id: c.simulation_case_id } },
    }),
  );
}

export function Simulations(props: { id?: string; session?: string }) {
  if (props.id && props.session) return <SessionPage suiteId={props.id} sessionId={props.session} />;
  if (props.id) return <SuitePage id={props.id} />;
  return <SuiteList />;
}

// ---- Suites and cases ----

function SuiteList() {
  const [page, setPage] = useState(1);
  const [casePage, setCasePage] = useState(1);
  const agents = useLoad(loadAgents, []);
  const suites = useLoad(
    () =>
      unwrap(
        parley().api.GET('/v2/simulation_suites', {
          params: { query: { page_number: page, page_size: SUITE_PAGE } },
        }),
      ),
    [page],
  );
  const cases = useLoad(() => listCases(casePage, CASE_PAGE), [casePage]);
  // The cases a new suite may take: the newest hundred (the API's largest page).
  const choosable = useLoad(() => listCases(1, 100), []);
  const caseRemoval = useChange();
  const suiteNames = useMemo(
    () => new Map((suites.data?.items ?? []).map((s) => [s.id, s.name])),
    [suites.data],
  );
  const reloadCases = () => {
    cases.reload();
    choosable.reload();
  };
  const removeCase = (c: Case) =>
    caseRemoval.run(async () => {
      await deleteCase(c);
      reloadCases();
    }, deleteCaseQuestion(c));

  return (
    <Page title="Simulations">
      <p>
        A test case is a simulated caller with a goal; a suite runs its cases against one agent and judges
        each call against the case’s success criteria.
      </p>
      <h2>Suites</h2>
      <Loading state={suites}>
        {(data) => (
          <ListTable
            label="Suites"
            columns={['Name', 'Agent', 'Cases', ...optional('Created')]}
            items={data.items}
            empty={
              page === 1 ? <p>No suites yet: write a test case, then make a suite of it below.</p> : undefined
            }
            paging={byPageNumber(page, SUITE_PAGE, data.total, setPage)}
            row={(s) => (
              <tr key={s.id}>
                <td>
                  <a href={href('simulations', s.id)}>{s.name}</a>
                </td>
                <td>{s.agent.name || <span class="hint">deleted agent</span>}</td>
                <td>{s.cases.length.toLocaleString()}</td>
                <td class="optional">{when(s.created_at)}</td>
              </tr>
            )}
          />
        )}
      </Loading>

      <h2>Test cases</h2>
      <ErrorNote error={caseRemoval.error} />
      <Loading state={cases}>
        {(data) => (
          <ListTable
            label="Test cases"
            columns={['Name', ...optional('Success criteria'), 'Suite', BUTTONS_COLUMN]}
            items={data.items}
            empty={casePage === 1 ? <p>No test cases yet.</p> : undefined}
            paging={byPageNumber(casePage, CASE_PAGE, data.total, setCasePage)}
            row={(c) => (
              <tr key={c.simulation_case_id}>
                <td>{c.name}</td>
                <td class="optional">
                  {plural(c.success_criteria.length, 'criterion', 'criteria')} (
                  {c.call_success_type === 'all' ? 'all must pass' : 'one is enough'})
                </td>
                <td>
                  {c.suite_id ? (
                    <a href={href('simulations', c.suite_id)}>{suiteNames.get(c.suite_id) ?? 'Open'}</a>
                  ) : (
                    <span class="hint">none</span>
                  )}
                </td>
                <td>
                  <DeleteButton name={c.name} onClick={() => void removeCase(c)} />
                </td>
              </tr>
            )}
          />
        )}
      </Loading>

      <h2>New test case</h2>
      <CaseForm onCreated={reloadCases} />

      <h2>New suite</h2>
      <SuiteForm agents={agents} cases={choosable} suiteNames={suiteNames} />
    </Page>
  );
}

type CaseField = 'name' | 'prompt' | 'success_criteria';
const CASE_FIELDS: CaseField[] = ['name', 'prompt', 'success_criteria'];

/** A new test case; in `suiteId` when given. */
function CaseForm(props: { suiteId?: string; onCreated: (c: Case) => void }) {
  const prefix = props.suiteId ? 'suite-case' : 'case';
  const [name, setName] = useState('');
  const [prompt, setPrompt] = useState('');
  const [criteria, setCriteria] = useState('');
  const [successType, setSuccessType] = useState<'all' | 'any'>('all');
  const [created, setCreated] = useState('');
  const form = useForm(CASE_FIELDS, (f) => `${prefix}-${f}`);

  const submit = async (event: Event) => {
    event.preventDefault();
    const list = criteria
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const problems: Problems<CaseField> = {};
    if (!name.trim()) problems.name = 'Enter a name.';
    else if ([...name.trim()].length > NAME_MAX) problems.name = `At most ${NAME_MAX} characters.`;
    if (!prompt.trim()) problems.prompt = 'Describe the caller: who they are and what they want.';
    if (list.length === 0) problems.success_criteria = 'Write at least one criterion, one per line.';
    else if (list.length > MAX_CRITERIA) problems.success_criteria = `At most ${MAX_CRITERIA} criteria.`;
    else if (list.some((l) => [...l].length > 2000))
      problems.success_criteria = 'A criterion is at most 2,000 characters.';
    setCreated('');
    if (!form.check(problems)) return;
    await form.send(async () => {
      const made = await unwrap(
        parley().api.POST('/v2/simulation_cases', {
          body: {
            name: name.trim(),
            prompt: prompt.trim(),
            success_criteria: list,
            call_success_type: successType,
            ...(props.suiteId ? { suite_id: props.suiteId } : {}),
          },
        }),
      );
      setName('');
      setPrompt('');
      setCriteria('');
      setCreated(made.simulation_case.name);
      props.onCreated(made.simulation_case);
    });
  };

  const { errors, unclaimed } = fieldErrors(CASE_FIELDS, form.invalid, form.error);
  return (
    <form onSubmit={submit} noValidate aria-busy={form.busy ? 'true' : undefined} aria-label="New test case">
      <InputField
        label="Case name"
        id={`${prefix}-name`}
        error={errors.name}
        type="text"
        autocomplete="off"
        maxLength={NAME_MAX}
        value={name}
        onValue={setName}
      />
      <TextAreaField
        label="Caller’s prompt"
        id={`${prefix}-prompt`}
        error={errors.prompt}
        hint="Who the simulated caller is and what they want, e.g. “You want to book a table for two tonight.”"
        rows={4}
        value={prompt}
        onValue={setPrompt}
      />
      <TextAreaField
        label="Success criteria"
        id={`${prefix}-success_criteria`}
        error={errors.success_criteria}
        hint="One per line: what the call must achieve, e.g. “The agent confirms the booking time.”"
        rows={4}
        value={criteria}
        onValue={setCriteria}
      />
      <fieldset class="choices">
        <legend>The case passes when</legend>
        <div>
          <label class="check">
            <input
              type="radio"
              name={`${prefix}-success-type`}
              checked={successType === 'all'}
              onChange={() => setSuccessType('all')}
            />
            every criterion is met
          </label>
        </div>
        <div>
          <label class="check">
            <input
              type="radio"
              name={`${prefix}-success-type`}
              checked={successType === 'any'}
              onChange={() => setSuccessType('any')}
            />
            one criterion is enough
          </label>
        </div>
      </fieldset>
      <ErrorNote error={unclaimed} />
      {created ? <Notice>Added the test case “{created}”.</Notice> : null}
      <FormButtons busy={form.busy} submit="Add test case" />
    </form>
  );
}

type SuiteField = 'name' | 'model_id' | 'case_ids';
const SUITE_FIELDS: SuiteField[] = ['name', 'model_id', 'case_ids'];

function SuiteForm(props: {
  agents: Loaded<Agent[]>;
  cases: Loaded<CaseList>;
  suiteNames: Map<string, string>;
}) {
  const [name, setName] = useState('');
  const [agentId, setAgentId] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const form = useForm(SUITE_FIELDS, (f) => `suite-${f}`);

  const toggle = (id: string, on: boolean) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  const submit = async (event: Event) => {
    event.preventDefault();
    const problems: Problems<SuiteField> = {};
    if (!name.trim()) problems.name = 'Enter a name.';
    else if ([...name.trim()].length > NAME_MAX) problems.name = `At most ${NAME_MAX} characters.`;
    if (!agentId) problems.model_id = 'Choose the agent the suite tests.';
    if (!form.check(problems)) return;
    await form.send(async () => {
      const suite = await unwrap(
        parley().api.POST('/v2/simulation_suites', {
          body: { name: name.trim(), model_id: agentId, ...(chosen.size ? { case_ids: [...chosen] } : {}) },
        }),
      );
      go('simulations', suite.id);
    });
  };

  const { errors, unclaimed } = fieldErrors(SUITE_FIELDS, form.invalid, form.error);
  const items = props.cases.data?.items ?? [];
  return (
    <form onSubmit={submit} noValidate aria-busy={form.busy ? 'true' : undefined} aria-label="New suite">
      <InputField
        label="Suite name"
        id="suite-name"
        error={errors.name}
        type="text"
        autocomplete="off"
        maxLength={NAME_MAX}
        value={name}
        onValue={setName}
      />
      <AgentField
        label="Agent to test"
        id="suite-model_id"
        agents={props.agents}
        error={errors.model_id}
        hint="A suite stays on its agent: it can only run on it."
        value={agentId}
        onValue={setAgentId}
      />
      <fieldset
        class={errors.case_ids ? 'choices invalid' : 'choices'}
        aria-describedby={['suite-cases-hint', errors.case_ids ? 'suite-cases-error' : '']
          .filter(Boolean)
          .join(' ')}
      >
        <legend>Test cases</legend>
        <small id="suite-cases-hint" class="hint">
          Optional: a case already in another suite moves into this one. You can also add cases on the suite’s
          page.
        </small>
        <ErrorNote error={props.cases.error} />
        {items.length === 0 && props.cases.data ? <p>No test cases yet.</p> : null}
        {items.map((c) => (
          <div key={c.simulation_case_id}>
            <label class="check">
              <input
                type="checkbox"
                checked={chosen.has(c.simulation_case_id)}
                onChange={(e) => toggle(c.simulation_case_id, e.currentTarget.checked)}
              />
              {c.name}
              {c.suite_id ? (
                <span class="hint"> (now in {props.suiteNames.get(c.suite_id) ?? 'another suite'})</span>
              ) : null}
            </label>
          </div>
        ))}
        {errors.case_ids ? (
          <small id="suite-cases-error" class="field-error" role="alert">
            {errors.case_ids}
          </small>
        ) : null}
      </fieldset>
      <ErrorNote error={unclaimed} />
      <FormButtons busy={form.busy} submit="Create suite" />
    </form>
  );
}

// ---- One suite ----

function SuitePage(props: { id: string }) {
  const id = props.id;
  const suite = useLoad(() => getSuite(id), [id]);
  const sessions = usePagedList(
    SESSION_LIMIT,
    (page) =>
      unwrap(
        parley().api.GET('/v2/simulation_suites/{suite_id}/sessions', {
          params: { path: { suite_id: id }, query: page },
        }),
      ),
    [id],
  );
  const change = useChange();

  if (suite.error !== undefined && isMissing(suite.error)) {
    return <NotFound thing="suite" back={href('simulations')} backText="Back to the simulations" />;
  }
  if (suite.data === undefined) return <LoadingPage title="Suite" error={suite.error} />;
  const s = suite.data;
  const removeSuite = () =>
    change.run(
      async () => {
        await unwrap(
          parley().api.DELETE('/v2/simulation_suites/{suite_id}', { params: { path: { suite_id: id } } }),
        );
        go('simulations');
      },
      `Delete the suite "${s.name}" and its ${plural(s.cases.length, 'test case')}?`,
    );
  const removeCase = (c: Case) =>
    change.run(async () => {
      await deleteCase(c);
      suite.reload();
    }, deleteCaseQuestion(c));
  return (
    <Page
      title={s.name}
      actions={
        <button type="button" class="danger" onClick={() => void removeSuite()}>
          Delete suite
        </button>
      }
    >
      <p>
        <a href={href('simulations')}>All suites</a>
      </p>
      <p>
        Tests{' '}
        {s.agent.name ? <a href={href('agents', s.model_id)}>{s.agent.name}</a> : 'an agent that was deleted'}
        . Callers speak {s.language}. Created {when(s.created_at)}.
      </p>
      <ErrorNote error={change.error} />
      <h2>Run the suite</h2>
      {s.cases.length === 0 ? <p>Add a test case first: a suite runs its cases.</p> : <RunForm suite={s} />}
      <h2>Runs</h2>
      <Loading state={sessions.list}>
        {(data) => (
          <ListTable
            label="Runs"
            columns={['Started', 'Status', 'Passed', ...optional('Could not run')]}
            items={data.sessions}
            empty={sessions.offset === 0 ? <p>Not run yet.</p> : undefined}
            paging={sessions.paging(data.pagination.total_records)}
            row={(r) => (
              <tr key={r.simulation_session_id}>
                <td>
                  <a href={href('simulations', id, r.simulation_session_id)}>{when(r.created_at)}</a>
                </td>
                <td>{r.status === 'completed' ? 'Finished' : 'Running'}</td>
                <td>{passedText(r)}</td>
                <td class="optional">{r.failed_simulations.toLocaleString()}</td>
              </tr>
            )}
          />
        )}
      </Loading>
      <h2>Test cases</h2>
      {s.cases.length === 0 ? (
        <p>No test cases in this suite yet.</p>
      ) : (
        <ul class="cases">
          {s.cases.map((c) => (
            <li key={c.simulation_case_id}>
              <h3>{c.name}</h3>
              <p>{c.prompt}</p>
              <p>
                Passes when{' '}
                {c.call_success_type === 'all' ? 'every criterion is met' : 'one criterion is met'}:
              </p>
              <ul>
                {c.success_criteria.map((line, i) => (
                  <li key={i}>{line}</li>
                ))}
              </ul>
              <button
                type="button"
                class="secondary"
                aria-label={`Delete the test case ${c.name}`}
                onClick={() => void removeCase(c)}
              >
                Delete test case
              </button>
            </li>
          ))}
        </ul>
      )}
      <h2>Add a test case to this suite</h2>
      <CaseForm suiteId={id} onCreated={() => suite.reload()} />
    </Page>
  );
}

function passedText(r: { simulations: { passed: boolean | null }[]; total_simulations: number }): string {
  const passed = r.simulations.filter((x) => x.passed === true).length;
  return `${passed.toLocaleString()} of ${r.total_simulations.toLocaleString()}`;
}

function RunForm(props: { suite: Suite }) {
  const { suite } = props;
  const [turns, setTurns] = useState('20');
  const [mode, setMode] = useState<RunMode>('recorded');
  const [invalid, setInvalid] = useState<string | undefined>(undefined);
  const { busy, error, setError, send } = useSending();

  const submit = async (event: Event) => {
    event.preventDefault();
    const n = Number(turns);
    if (!Number.isInteger(n) || n < 10 || n > 50) {
      setInvalid('A whole number from 10 to 50.');
      document.getElementById('run-max_turns')?.focus();
      return;
    }
    setInvalid(undefined);
    setError(undefined);
    await send(async () => {
      const started = await unwrap(
        parley().api.POST('/v2/simulation_suites/{suite_id}/execute', {
          params: {
            path: { suite_id: suite.id },
            query: { target_agent_id: suite.model_id, max_turns: n, actions: mode },
          },
        }),
      );
      go('simulations', suite.id, started.session_id);
    });
  };
  const turnsError = invalid ?? fieldError(error, 'max_turns');
  return (
    <form onSubmit={submit} noValidate aria-busy={busy ? 'true' : undefined} aria-label="Run the suite">
      <InputField
        label="Caller turns at most"
        id="run-max_turns"
        error={turnsError}
        hint="10 to 50: the conversation stops once the caller has spoken this many times."
        type="number"
        inputMode="numeric"
        min={10}
        max={50}
        value={turns}
        onValue={setTurns}
      />
      <fieldset class="choices">
        <legend>The agent’s actions</legend>
        <div>
          <label class="check">
            <input
              type="radio"
              name="run-actions"
              checked={mode === 'recorded'}
              onChange={() => setMode('recorded')}
            />
            Stand-ins: nothing leaves Parley (nothing is booked, nobody is texted)
          </label>
        </div>
        <div>
          <label class="check">
            <input
              type="radio"
              name="run-actions"
              checked={mode === 'live'}
              onChange={() => setMode('live')}
            />
            Live: the real systems, as in calls
          </label>
        </div>
      </fieldset>
      <ErrorNote error={turnsError && !invalid ? undefined : error} />
      <FormButtons
        busy={busy}
        submit={busy ? 'Starting…' : `Run ${plural(suite.cases.length, 'test case')}`}
      />
    </form>
  );
}

// ---- One run ----

function SessionPage(props: { suiteId: string; sessionId: string }) {
  const { suiteId, sessionId } = props;
  const suite = useLoad(() => getSuite(suiteId), [suiteId]);
  const polled = usePolled(
    () => getSession(sessionId),
    (s) => s.status === 'completed',
    POLL_MS,
    [sessionId],
  );
  const { record: session, loadError, pollError } = polled;

  const suiteName = suite.data?.name;
  if (session === undefined) {
    if (loadError !== undefined && isMissing(loadError)) {
      return <NotFound thing="run" back={href('simulations', suiteId)} backText="Back to the suite" />;
    }
    return <LoadingPage title="Simulation run" error={loadError} />;
  }
  const done = session.status === 'completed';
  const passed = session.simulations.filter((x) => x.passed === true).length;
  const judgedFailed = session.simulations.filter((x) => x.passed === false).length;
  return (
    <Page title={suiteName ? `Run of ${suiteName}` : 'Simulation run'}>
      <p>
        <a href={href('simulations', session.suite_id || suiteId)}>Back to the suite</a> · Started{' '}
        {when(session.created_at)} · at most {plural(session.max_turns, 'caller turn')}
      </p>
      <p role="status" aria-live="polite">
        {done
          ? `Finished: ${passed.toLocaleString()} of ${plural(session.total_simulations, 'test case')} passed.`
          : `Running: ${session.pending_simulations.toLocaleString()} of ${plural(session.total_simulations, 'test case')} still going. This page updates by itself.`}
      </p>
      {pollError !== undefined ? (
        <p class="error" role="alert">
          Could not refresh the run ({describe(pollError)}); still trying.
        </p>
      ) : null}
      <div class="counters">
        <Counter value={session.total_simulations.toLocaleString()}>test cases</Counter>
        <Counter value={passed.toLocaleString()}>passed</Counter>
        <Counter value={judgedFailed.toLocaleString()}>not passed</Counter>
        <Counter value={session.failed_simulations.toLocaleString()}>could not run</Counter>
        <Counter value={session.pending_simulations.toLocaleString()}>running</Counter>
      </div>
      {session.simulations.map((sim) => (
        <SimulationResult key={sim.simulation_id} sim={sim} />
      ))}
    </Page>
  );
}

function verdict(sim: Simulation): string {
  if (sim.status === 'failed') return 'Could not run';
  if (sim.status === 'in-progress') return 'Running';
  if (sim.passed === true) return 'Passed';
  if (sim.passed === false) return 'Not passed';
  return 'Not judged';
}

interface Turn {
  who: 'Agent' | 'Caller' | string;
  text: string;
}

function turnsOf(sim: Simulation): Turn[] {
  if (sim.timeline && sim.timeline.length > 0) {
    return sim.timeline
      .filter((t) => t.value)
      .map((t) => ({
        who:
          t.sender_type === 'agent' ? 'Agent' : t.sender_type === 'user' ? 'Caller' : (t.sender_type ?? '—'),
        text: t.value ?? '',
      }));
  }
  return sim.transcript
    .split('\n')
    .filter((l) => l.trim())
    .map((line) => {
      const m = /^(bot|agent|human|user):\s?(.*)$/.exec(line);
      if (!m) return { who: '', text: line };
      return { who: m[1] === 'bot' || m[1] === 'agent' ? 'Agent' : 'Caller', text: m[2] ?? '' };
    });
}

function SimulationResult(props: { sim: Simulation }) {
  const { sim } = props;
  const turns = turnsOf(sim);
  const headingId = `sim-${sim.simulation_id}`;
  return (
    <article class="simulation" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {sim.simulation_case_name ?? 'Deleted test case'}: {verdict(sim)}
      </h2>
      {sim.simulation_case_prompt ? (
        <p>
          <span class="hint">Caller:</span> {sim.simulation_case_prompt}
        </p>
      ) : null}
      {sim.error ? (
        <p class="error" role="alert">
          {sim.error}
        </p>
      ) : null}
      {sim.criteria_results.length > 0 ? (
        <Table
          label={`Verdicts for ${sim.simulation_case_name ?? 'the test case'}`}
          columns={['Criterion', 'Verdict', 'Why']}
        >
          {sim.criteria_results.map((r, i) => (
            <tr key={i}>
              <td>{r.criterion}</td>
              <td class={r.passed ? 'ok' : 'bad'}>{r.passed ? '✓ Met' : '✗ Not met'}</td>
              <td>{r.reason}</td>
            </tr>
          ))}
        </Table>
      ) : sim.status === 'in-progress' ? (
        <p aria-busy="true">In progress…</p>
      ) : null}
      <details>
        <summary>Transcript ({plural(sim.turns, 'turn')})</summary>
        {turns.length === 0 ? (
          <p>No transcript yet.</p>
        ) : (
          <ol class="transcript">
            {turns.map((t, i) => (
              <li key={i}>
                {t.who ? <span class="who">{t.who}:</span> : null}
                {t.text}
              </li>
            ))}
          </ol>
        )}
      </details>
    </article>
  );
}
