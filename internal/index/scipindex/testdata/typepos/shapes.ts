// Types and values of one name, generics and conditional types, without JSX.
export interface Shape {
  name: string;
  size: number;
}
export const Shape = {
  defaultSize: 1,
  make(size = 1): Shape {
    return { name: "s", size };
  },
  Badge: (p: { count: number }) => p.count,
};

export type Options = Partial<Pick<Shape, "size">> & { label?: string };
export type Maybe<T> = T extends null | undefined ? never : T;
export type Deep<T> = { readonly [K in keyof T]: T[K] extends object ? Deep<T[K]> : T[K] };
export type Fn<R = void> = (this: Shape, ...args: unknown[]) => R | Promise<R>;

export class Square implements Shape {
  name = "square";
  constructor(public size: number) {}
  area(): number {
    return this.size * this.size;
  }
  static of<S extends Shape>(s: S): Square {
    return new Square(s.size < 0 ? -s.size : s.size);
  }
}

export function largest(shapes: Shape[], limit?: number): Shape | undefined {
  let best: Shape | undefined;
  for (let i = 0; i < shapes.length; i++) {
    const s = shapes[i] as Shape;
    if (limit !== undefined && s.size > limit) continue;
    if (!best || best.size < s.size) best = s;
  }
  return best;
}

export const isShape = (x: unknown): x is Shape => typeof x === "object" && x !== null && "size" in x;
export const cast = <T>(x: unknown) => x as T;
export const both = <Shape>Shape.make();
