import type { ClubProfile, MerchandiseChannel, OrderStatus } from '../../clubs/club-profile.js';
import { CursorResource, type Item } from '../../store/cursor-resource.js';
import { Rng } from '../../random.js';
import type { Population } from '../population.js';
import { SCALE_1 } from '../population.js';
import { DAY_MS, SIX_YEARS_MS, iso } from '../time.js';
import type { Users } from './users.js';

/**
 * The shop's catalogue. Integer prices are whole currency units (NOK), VAT included:
 * the documents leave the unit open (see docs/decisions.md).
 */
const PRODUCTS = [
  { id: 101, name: 'Home shirt', price: 899, sizes: ['S', 'M', 'L', 'XL'] },
  { id: 102, name: 'Away shirt', price: 899, sizes: ['S', 'M', 'L', 'XL'] },
  { id: 103, name: 'Scarf', price: 249, sizes: ['ONE'] },
  { id: 104, name: 'Beanie', price: 199, sizes: ['ONE'] },
  { id: 105, name: 'Hoodie', price: 649, sizes: ['S', 'M', 'L', 'XL', 'XXL'] },
  { id: 106, name: 'Mug', price: 149, sizes: ['ONE'] },
  { id: 107, name: 'Kids shirt', price: 599, sizes: ['116', '128', '140', '152'] },
  { id: 108, name: 'Training jacket', price: 999, sizes: ['S', 'M', 'L', 'XL'] },
] as const;
const PAYMENT = { 1: 'Card', 2: 'Vipps', 3: 'Invoice' } as const;
const REDEEM = { 0: 'Not collected', 1: 'Collected', 2: 'Shipped' } as const;

/** Merchandise (`/api/merchandise`): single sold items, grouped into orders by id_order. */
export class Merchandise extends CursorResource {
  private readonly orderStart: Uint32Array;
  private readonly statuses: readonly (readonly [OrderStatus, number])[];
  private readonly channels: readonly MerchandiseChannel[];

  constructor(
    private readonly population: Population,
    private readonly users: Users,
    private readonly nowMs: number,
    club: ClubProfile,
  ) {
    const total = Math.max(30, Math.round(SCALE_1.merchandiseItems * population.scale));
    const orderStart = new Uint32Array(total);
    const rng = Rng.for(population.seed, 'merch-orders');
    for (let i = 0; i < total; ) {
      const size = Math.min(total - i, rng.weighted([[1, 50], [2, 30], [3, 12], [4, 8]] as const));
      orderStart.fill(i, i, i + size);
      i += size;
    }
    const lastUpdate = Float64Array.from(orderStart, (first) => orderDate(population.seed, first, nowMs) + 60_000);
    super('merchandise', lastUpdate);
    this.orderStart = orderStart;
    this.statuses = club.orderStatuses.map((status) => [status, status.merchandiseWeight] as const);
    this.channels = club.merchandiseChannels;
  }

  keyOf(item: Item): string {
    return String(item.id);
  }

  protected newKey(index: number): Item {
    return { id: 1 + index };
  }

  protected generate(index: number, version: number, lastUpdate: string): Item {
    const seed = this.population.seed;
    const first = this.orderStart[index]!;
    let size = 1;
    while (first + size < this.orderStart.length && this.orderStart[first + size] === first) size++;
    const order = Rng.for(seed, 'merch-order', first);
    const orderMs = orderDate(seed, first, this.nowMs);
    const existing = this.users.existingBefore(orderMs);
    const userIndex = Math.min(existing - 1, Math.floor(existing * order.next() ** 1.3));
    const user = this.users.record(userIndex);
    const status = order.weighted(this.statuses);
    const payment = order.int(1, 3) as keyof typeof PAYMENT;
    const channel = order.pick(this.channels);
    const redeem = (channel.atStadium ? 1 : order.int(0, 2)) as keyof typeof REDEEM;
    const lines = Array.from({ length: size }, (_, k) => line(seed, first + k));
    const item = lines[index - first]!;
    const orderAmount = lines.reduce((sum, l) => sum + l.final, 0);
    const subtotal = Math.round((item.final / 1.25) * 100) / 100;
    const rng = Rng.for(seed, 'merch-item', index);
    return {
      id: 1 + index,
      vat: Math.round((item.final - subtotal) * 100) / 100,
      vat_percentage: 25,
      id_order: `ORD-${100_000 + first}`,
      last_update: lastUpdate,
      user_id: user.id,
      order_amount: orderAmount.toFixed(2),
      payment_code: `PAY-${(hashHex(seed, first))}`,
      order_datetime: iso(orderMs),
      username: user.username,
      recovery_mail_address: user.email,
      phone_number: user.phone,
      recovery_phone_number: user.phone,
      phone_guest: null,
      pickup_data: channel.atStadium ? 'Picked up at stadium shop' : null,
      user_address: user.address,
      user_city: user.city,
      user_country: user.country,
      user_zip_code: user.zip_code,
      user_created: user.user_created,
      user_last_login: user.user_last_login,
      id_transaction_status: status.id,
      id_transaction: 7_000_000 + first,
      order_no: 50_000 + first,
      in_app_transaction: channel.isApp,
      redeem_status: redeem,
      name_redeemed: redeem === 1 ? user.completename : null,
      note_redeemed: null,
      from_redeemed: redeem === 1 ? 'shop' : null,
      id_external_transaction: `EXT-${7_000_000 + first}`,
      notater_ticket: '',
      date_redeemed: redeem === 1 || version > 0 ? lastUpdate : null,
      from_redeemed_txt: redeem === 1 ? 'Stadium shop' : null,
      redeem_status_txt: REDEEM[redeem],
      order_type: 8,
      order_status: status.id,
      payment_type: payment,
      order_type_txt: 'Merchandise',
      order_status_txt: status.name,
      payment_type_txt: PAYMENT[payment],
      sale_channel_txt: channel.name,
      result: status.group === 'paid' ? 'OK' : status.group === 'pending' ? 'PENDING' : 'CANCELLED',
      refund_detail: status.group === 'refunded' ? 'Refunded on request' : null,
      refunded_amount: status.group === 'refunded' ? item.final.toFixed(2) : null,
      cancel_detail: status.group === 'cancelled' ? 'Cancelled by customer' : null,
      prod_id: item.product.id,
      prod_name: item.product.name,
      prod_size: item.size,
      prod_conf: { size: item.size, print: rng.chance(0.2) ? { name: 'FANLAKE', number: rng.int(1, 99) } : null },
      prod_base_price: item.product.price,
      prod_additional: item.additional,
      prod_disccount: item.discount,
      prod_min_price: item.product.price - 100,
      prod_max_price: item.product.price + 200,
      price_subtotal: subtotal,
      vat_category: 'standard',
      order_final_price: item.final,
    };
  }
}

function orderDate(seed: number, first: number, nowMs: number): number {
  const rng = Rng.for(seed, 'merch-order-date', first);
  return Math.floor(nowMs - DAY_MS - rng.next() * (SIX_YEARS_MS - 2 * DAY_MS));
}

function line(seed: number, index: number) {
  const rng = Rng.for(seed, 'merch-line', index);
  const product = rng.pick(PRODUCTS);
  const size = rng.pick(product.sizes as readonly string[]);
  const additional = rng.chance(0.2) ? 150 : 0;
  const discount = rng.chance(0.15) ? Math.round(product.price * 0.1) : 0;
  return { product, size, additional, discount, final: product.price + additional - discount };
}

function hashHex(seed: number, value: number): string {
  return Rng.for(seed, 'payment', value).digits(10);
}
