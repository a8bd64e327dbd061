import { Rng } from '../../random.js';
import type { CampaignApps } from './campaign-apps.js';

export interface ContextNode {
  readonly id: string;
  readonly type: 'mypage' | 'tab' | 'carousel' | 'carouselItem' | 'campaign';
  readonly path: string;
  readonly schema: string;
  readonly customData: string | null;
  /** Index of the parent node, -1 for a root. */
  readonly parent: number;
  readonly children: number[];
}

const ROOTS = [
  { channel: 'web', title: 'My page', sections: ['home', 'matchday', 'shop'] },
  { channel: 'app', title: 'Fan app', sections: ['home', 'kids'] },
] as const;

/**
 * The context tree: mypage roots → tabs → carousels → carousel items → campaigns. Small,
 * so it is built once. Roots carry `{"level":"root"}` in customData, so a by-field lookup
 * (`fieldType=level&fieldValue=root`) finds every tree.
 */
export class Contexts {
  readonly nodes: ContextNode[] = [];
  private readonly byId = new Map<string, number>();

  constructor(seed: number, apps: CampaignApps) {
    const rng = Rng.for(seed, 'eng-contexts');
    const add = (type: ContextNode['type'], parent: number, schema: object, customData: object | null): number => {
      const id = String(1001 + this.nodes.length);
      const path = parent < 0 ? id : `${this.nodes[parent]!.path}.${id}`;
      const index = this.nodes.push({ id, type, path, schema: JSON.stringify(schema), customData: customData && JSON.stringify(customData), parent, children: [] }) - 1;
      if (parent >= 0) this.nodes[parent]!.children.push(index);
      this.byId.set(id, index);
      return index;
    };
    for (const root of ROOTS) {
      const rootIndex = add('mypage', -1, { title: root.title, theme: rng.pick(['dark', 'light']) }, { level: 'root', channel: root.channel });
      for (const section of root.sections) {
        const tab = add('tab', rootIndex, { title: section[0]!.toUpperCase() + section.slice(1), icon: section }, { section });
        for (let c = rng.int(1, 2); c > 0; c--) {
          const placement = rng.pick(['top', 'middle', 'bottom']);
          const carousel = add('carousel', tab, { title: `${section} ${placement}`, autoplay: rng.chance(0.5) }, rng.chance(0.5) ? { section, placement } : null);
          for (let slot = 1, items = rng.int(2, 4); slot <= items; slot++) {
            const app = apps.app(rng.int(0, apps.count - 1));
            const item = add('carouselItem', carousel, { title: app.name, imageUrl: `https://media.engage.example/campaigns/${app.guid}.jpg` }, rng.chance(0.6) ? { slot } : null);
            add('campaign', item, { campaignAppId: app.id, layout: app.visualType }, { section, campaignAppId: String(app.id) });
          }
        }
      }
    }
  }

  indexOf(id: string): number {
    return this.byId.get(id) ?? -1;
  }

  /** Nodes whose customData has `field` equal to `value` (compared as text), in tree order. */
  matching(field: string, value: string): number[] {
    const out: number[] = [];
    this.nodes.forEach((node, index) => {
      if (!node.customData) return;
      const data = JSON.parse(node.customData) as Record<string, unknown>;
      const found = data[field];
      if (found !== undefined && found !== null && typeof found !== 'object' && String(found) === value) out.push(index);
    });
    return out;
  }
}
