import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE_ID_PATHS, decodeBody, readPushMessage } from '../../src/listen/push-payload.js';

const none = new URLSearchParams();
const read = (value: unknown, paths: readonly string[] = DEFAULT_PROFILE_ID_PATHS) => readPushMessage(JSON.stringify(value), none, paths);

describe('readPushMessage', () => {
  it('reads the simulator\'s delivery and its validation call', () => {
    expect(read({ event: 'CustomerProfile', customerProfiles: [{ id: '1000001' }, { id: '1000002' }, { id: '1000001' }] })).toEqual({ kind: 'changes', ids: ['1000001', '1000002'] });
    expect(read({ subscriptions: { id: '64', event: 'CustomerProfile', validationToken: 'tok' } })).toEqual({ kind: 'validation', token: 'tok', subscriptionId: '64' });
  });

  it('tolerates other shapes: one object for a list, numbers, a list of notifications, ids at the top', () => {
    expect(read({ customerProfiles: { id: 1000003 } })).toEqual({ kind: 'changes', ids: ['1000003'] });
    expect(read([{ customerProfileId: '7' }, { customerProfileId: 8 }])).toEqual({ kind: 'changes', ids: ['7', '8'] });
    expect(read({ customerProfileIds: ['9', '10'] })).toEqual({ kind: 'changes', ids: ['9', '10'] });
    expect(read({ validationToken: 'abc' })).toEqual({ kind: 'validation', token: 'abc' });
    expect(readPushMessage('', new URLSearchParams('validationToken=q'), DEFAULT_PROFILE_ID_PATHS)).toEqual({ kind: 'validation', token: 'q' });
  });

  it('reads ids where a configured path says, and nothing it cannot take for an id', () => {
    const payload = { data: [{ type: 'customerProfiles', attributes: { profileId: '42' } }, { attributes: { profileId: 'a b' } }] };
    expect(read(payload)).toMatchObject({ kind: 'unreadable' });
    expect(read(payload, ['data[].attributes.profileId'])).toEqual({ kind: 'changes', ids: ['42'] });
    expect(readPushMessage('not json', none, DEFAULT_PROFILE_ID_PATHS)).toEqual({ kind: 'unreadable', why: 'the body is not JSON' });
  });

  it('decodes a body in the charset its content type names', () => {
    const latin2 = Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xb1, 0x22, 0x7d]); // {"n":"ą"} in iso-8859-2
    expect(decodeBody(latin2, 'application/json; charset=iso-8859-2')).toBe('{"n":"ą"}');
    expect(decodeBody(Buffer.from('{"n":"ø"}'), 'application/vnd.api+json')).toBe('{"n":"ø"}');
  });
});
