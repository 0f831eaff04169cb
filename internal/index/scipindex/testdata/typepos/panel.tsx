// A component file: JSX text holds what would be code elsewhere (an
// apostrophe, a backtick, "src/*", "</"), beside types and comparisons.
import { Shape, type Options } from "./shapes";

export interface PanelProps<T extends Shape = Shape> {
  items: readonly (T | undefined)[];
  render?(item: T): JSX.Element;
  onPick: (item: T, index: number) => void | Promise<void>;
  readonly [Symbol.toStringTag]?: string;
}

type Keys<T> = { [K in keyof T]: T[K] extends Function ? K : never }[keyof T];
type Rest<T> = T extends [infer H, ...infer R] ? R : [];
type Ctor<A extends unknown[]> = new (...args: A) => Shape;
type Pick1 = <T,>(a: T) => T;

const pick: Pick1 = <T,>(a: T): T => a;

export function Panel<T extends Shape>({ items, render, onPick }: PanelProps<T>) {
  const first = items.length > 0 ? items[0] : undefined;
  const small = items.length < 3 && first !== undefined;
  const order = (a: T, b: T) => (a.size < b.size ? -1 : a.size > b.size ? 1 : 0);
  const opts = { size: Shape.defaultSize, label: "it's" } as Options;
  return (
    <section class={small ? "small" : "large"} style={{ padding: opts.size }}>
      Don't edit src/*.ts by hand: run `make` first.
      {items.map((item, i) =>
        item ? (
          <Row key={i} item={item} onClick={() => onPick(item, i)}>
            {render ? render(item) : <span>{item.name}</span>}
          </Row>
        ) : null,
      )}
      <>a fragment's text</>
      <Shape.Badge count={items.length} />
    </section>
  );
}

function Row(props: { item: Shape; onClick(): void; children?: unknown }) {
  return <div onClick={props.onClick}>{props.children as string}</div>;
}

export const sorted = <P,>(xs: P[], less: (a: P, b: P) => boolean): P[] =>
  [...xs].sort((a, b) => (less(a, b) ? -1 : 1));

export const n = pick(1) < 2 ? Shape.make() : Shape.make(pick(0));
