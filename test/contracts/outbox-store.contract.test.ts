import { describe, expect, it } from 'vitest';
import type { OutboxMessage } from '../../src/store/ports.ts';
import { testEngines } from '../helpers/databases.ts';
import { useMigratedStore } from './migrated-store.ts';

const engines = await testEngines();

describe.each(engines)('OutboxStore on $engine', (engine) => {
  const database = useMigratedStore(engine);
  const outbox = () => database.store.outbox;
  const mail = (recipient: string, subject: string, createdAt = 1_000): Omit<OutboxMessage, 'id'> => ({
    channel: 'mail',
    recipient,
    subject,
    text: `text of ${subject}`,
    html: `<p>html of ${subject}</p>`,
    createdAt,
  });

  it('lists nothing when nothing was appended', async () => {
    expect(await outbox().list()).toEqual([]);
  });

  it('keeps every field of a mail and of an SMS (no subject, no HTML), and returns the stored row', async () => {
    const stored = await outbox().append(mail('a@example.com', 'Confirm', 1_700_000_000_123));
    const sms = await outbox().append({ channel: 'sms', recipient: '+15550100', subject: null, text: 'Code 123456', html: null, createdAt: 2_000 });
    expect(stored).toEqual({ id: expect.any(Number), ...mail('a@example.com', 'Confirm', 1_700_000_000_123) });
    expect(await outbox().list()).toEqual([
      { id: sms.id, channel: 'sms', recipient: '+15550100', subject: null, text: 'Code 123456', html: null, createdAt: 2_000 },
      stored,
    ]);
  });

  it('lists newest first, at most `limit`', async () => {
    for (const subject of ['one', 'two', 'three']) await outbox().append(mail('a@example.com', subject));
    expect((await outbox().list({ limit: 2 })).map((message) => message.subject)).toEqual(['three', 'two']);
  });

  it('filters by the exact recipient', async () => {
    await outbox().append(mail('a@example.com', 'for a'));
    await outbox().append(mail('b@example.com', 'for b'));
    await outbox().append(mail('A@example.com', 'for upper-case A'));
    expect((await outbox().list({ recipient: 'a@example.com' })).map((message) => message.subject)).toEqual(['for a']);
    expect(await outbox().list({ recipient: 'nobody@example.com' })).toEqual([]);
  });

  it('keeps long Unicode text intact', async () => {
    const text = `Grüße, ${'ı'.repeat(5_000)} 🙂\r\nline two`;
    await outbox().append({ ...mail('a@example.com', 'Ünïcode'), text });
    expect((await outbox().list())[0]).toMatchObject({ subject: 'Ünïcode', text });
  });

  it('refuses a channel other than mail or sms', async () => {
    const bad = { ...mail('a@example.com', 'x'), channel: 'fax' } as unknown as Omit<OutboxMessage, 'id'>;
    await expect(outbox().append(bad)).rejects.toThrow();
    expect(await outbox().list()).toEqual([]);
  });
});
